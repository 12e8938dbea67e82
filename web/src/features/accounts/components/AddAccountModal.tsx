import { refusalMessage } from '../../../shared/refusal';
import { Divider, NumberInput, Select, SimpleGrid, TextInput, Textarea } from '@mantine/core';
import { genderValues, messages, orientationValues, platformValues, relationshipGoalValues } from '@farm/contracts';
import { errorToast, toast } from '../../../shared/toast';
import { ModalForm, useModalForm } from '../../../shared/ui/FormModal';
import { useCreateAccount, useDevices } from '../accounts.api';
import {
  accountFieldErrors,
  buildAccountPayload,
  emptyAccountForm,
  genderLabels,
  orientationLabels,
  platformLabels,
  relationshipGoalLabels,
  tinderAge,
  type AccountFormValues,
} from '../accounts.form';
import { ProfileImagesField } from './ProfileImagesField';

export const accountCreateFailure = 'Failed to create account';

function pickOne<T extends string>(values: readonly T[], value: string | null): T | null {
  return values.find((candidate) => candidate === value) ?? null;
}

export interface AddAccountModalProps {
  opened: boolean;
  onClose: () => void;
}

export function AddAccountModal({ opened, onClose }: AddAccountModalProps) {
  const devices = useDevices();
  const create = useCreateAccount();
  const { values, errors, set, setErrors } = useModalForm<AccountFormValues>(opened, emptyAccountForm);

  function submit(): void {
    const body = buildAccountPayload(values);
    const found = accountFieldErrors(body);
    if (Object.keys(found).length > 0) {
      setErrors(found);
      return;
    }
    create.mutate(body, {
      onSuccess: () => {
        toast('Account Created', 'Social media account has been added successfully');
        onClose();
      },
      onError: (error) => errorToast('Error', refusalMessage(error, accountCreateFailure)),
    });
  }

  const deviceOptions = (devices.data ?? []).map((device) => ({ value: device.id, label: device.name }));

  return (
    <ModalForm opened={opened} onClose={onClose} title="Add Account" size="lg" onSubmit={submit} busy={create.isPending} submitLabel="Add Account">
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput
          label="Username"
          placeholder="username"
          required
          value={values.username}
          onChange={(event) => set('username', event.currentTarget.value)}
          error={errors.username}
        />
        <Select
          label="Platform"
          required
          allowDeselect={false}
          data={platformValues.map((value) => ({ value, label: platformLabels[value] }))}
          value={values.platform}
          onChange={(value) => {
            const platform = pickOne(platformValues, value);
            if (platform) set('platform', platform);
          }}
        />
      </SimpleGrid>
      <Select
        label="Device"
        placeholder={devices.isPending ? 'Loading devices...' : 'Select a device'}
        description={messages.accountLimit}
        clearable
        searchable
        nothingFoundMessage="No devices"
        data={deviceOptions}
        value={values.deviceId}
        onChange={(value) => set('deviceId', value)}
        error={errors.deviceId}
      />
      <Textarea
        label="Bio"
        description="Optional"
        autosize
        minRows={2}
        maxRows={6}
        value={values.bio}
        onChange={(event) => set('bio', event.currentTarget.value)}
        error={errors.bio}
      />

      {values.platform === 'tinder' && (
        <>
          <Divider label="Tinder Profile Details" labelPosition="left" />
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <Select
              label="Gender"
              placeholder="Select gender"
              clearable
              data={genderValues.map((value) => ({ value, label: genderLabels[value] }))}
              value={values.gender}
              onChange={(value) => set('gender', pickOne(genderValues, value))}
              error={errors.gender}
            />
            <NumberInput
              label="Age"
              min={tinderAge.min}
              max={tinderAge.max}
              allowDecimal={false}
              allowNegative={false}
              value={values.age}
              onChange={(value) => set('age', value)}
              error={errors.age}
            />
            <TextInput
              type="date"
              label="Birthday"
              value={values.birthday}
              onChange={(event) => set('birthday', event.currentTarget.value)}
              error={errors.birthday}
            />
            <Select
              label="Sexual Orientation"
              placeholder="Select orientation"
              clearable
              data={orientationValues.map((value) => ({ value, label: orientationLabels[value] }))}
              value={values.sexualOrientation}
              onChange={(value) => set('sexualOrientation', pickOne(orientationValues, value))}
              error={errors.sexualOrientation}
            />
            <Select
              label="Relationship Goal"
              placeholder="Select a goal"
              clearable
              data={relationshipGoalValues.map((value) => ({ value, label: relationshipGoalLabels[value] }))}
              value={values.relationshipGoal}
              onChange={(value) => set('relationshipGoal', pickOne(relationshipGoalValues, value))}
              error={errors.relationshipGoal}
            />
            <TextInput
              label="Interests"
              description="Comma-separated"
              placeholder="hiking, coffee, travel"
              value={values.interests}
              onChange={(event) => set('interests', event.currentTarget.value)}
              error={errors.interests}
            />
          </SimpleGrid>
          <ProfileImagesField value={values.profileImages} onChange={(paths) => set('profileImages', paths)} error={errors.profileImages} />
        </>
      )}
    </ModalForm>
  );
}
