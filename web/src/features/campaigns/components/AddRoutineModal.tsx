import { refusalMessage } from '../../../shared/refusal';
import { Alert, NumberInput, Select, SimpleGrid, Text, TextInput } from '@mantine/core';
import { messages, routineSettings, routineTypeLabels, type Account, type Campaign } from '@farm/contracts';
import { errorToast, toast } from '../../../shared/toast';
import { ModalForm, useModalForm } from '../../../shared/ui/FormModal';
import { useCreateRoutine } from '../campaigns.api';
import { CommentsByVaNote } from './CommentsByVaNote';
import {
  addableRoutineTypes,
  buildRoutinePayload,
  emptyRoutineForm,
  formDuration,
  routineBounds,
  routineContentTypes,
  routineFormProblem,
  routineSettingsFor,
  routineSpeeds,
  type AddableRoutineType,
  type RoutineFormValues,
} from '../routines.form';

export const routineCreateFailure = 'Failed to create routine. Please try again.';
/** The account choice that stands for every account on the phones of the campaign's group. */
export const GROUP_ACCOUNTS = 'group';

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export interface AddRoutineModalProps {
  opened: boolean;
  onClose: () => void;
  campaign: Campaign;
  linkedAccounts: readonly Account[];
}

export function AddRoutineModal({ opened, onClose, campaign, linkedAccounts }: AddRoutineModalProps) {
  const create = useCreateRoutine();
  const { values, set } = useModalForm<RoutineFormValues>(opened, emptyRoutineForm);

  const duration = formDuration(values);
  const noAccounts = linkedAccounts.length === 0 && !campaign.groupId;

  function submit(): void {
    const problem = routineFormProblem(values);
    if (problem === 'type' || !values.type) return;
    if (problem === 'account' || !values.accountId) {
      errorToast('Account Required', messages.routineAccount);
      return;
    }
    const settings = routineSettings.safeParse(routineSettingsFor(values.type, values));
    if (!settings.success) {
      errorToast('Validation Error', settings.error.issues[0]?.message ?? routineCreateFailure);
      return;
    }
    const built = buildRoutinePayload({ ...values, type: values.type, accountId: values.accountId }, { campaignId: campaign.id, platform: campaign.platform });
    // For the group: no account of its own, it runs for each account on the group's phones.
    const { accountId: _one, ...forGroup } = built;
    const body = values.accountId === GROUP_ACCOUNTS ? { ...forGroup, forGroup: true } : built;
    create.mutate(body, {
      onSuccess: () => {
        toast('Routine Added', `${routineTypeLabels[body.type]} routine added to ${campaign.name}.`);
        onClose();
      },
      onError: (error) => errorToast('Error', refusalMessage(error, routineCreateFailure)),
    });
  }

  type CountKey = 'warmupMinutes' | 'warmupActions' | 'doomScrollMinutes' | 'basicScrollMinutes' | 'targetPosts' | 'branchDepth' | 'intensity';
  /** A whole, non-negative number of the routine's settings, within its bounds. */
  const countInput = (key: CountKey, label: string, bounds: { min: number; max: number }, description?: string) => (
    <NumberInput
      label={label}
      description={description}
      min={bounds.min}
      max={bounds.max}
      allowDecimal={false}
      allowNegative={false}
      value={values[key]}
      onChange={(value) => set(key, value)}
    />
  );
  const minutesInput = (key: 'warmupMinutes' | 'doomScrollMinutes' | 'basicScrollMinutes') => countInput(key, 'Duration (minutes)', routineBounds.minutes);

  /** One of a setting's few words, shown capitalised. */
  const choiceSelect = <K extends 'speed' | 'contentType'>(key: K, label: string, options: readonly RoutineFormValues[K][]) => (
    <Select
      label={label}
      data={options.map((value) => ({ value, label: capitalise(value) }))}
      allowDeselect={false}
      value={values[key]}
      onChange={(value) => {
        const choice = options.find((option) => option === value);
        if (choice) set(key, choice);
      }}
    />
  );

  const engagementRateInput = (
    <NumberInput
      label="Engagement Rate (%)"
      min={routineBounds.engagementRate.min}
      max={routineBounds.engagementRate.max}
      allowNegative={false}
      value={values.engagementRate}
      onChange={(value) => set('engagementRate', value)}
    />
  );

  function typeSettings(type: AddableRoutineType) {
    switch (type) {
      case 'warmup':
        return (
          <>
            {minutesInput('warmupMinutes')}
            {countInput('warmupActions', 'Number of Actions', routineBounds.actions)}
          </>
        );
      case 'doom_scroll':
        return (
          <>
            {minutesInput('doomScrollMinutes')}
            {choiceSelect('speed', 'Scroll Speed', routineSpeeds)}
          </>
        );
      case 'basic_scroll':
        return minutesInput('basicScrollMinutes');
      case 'create_post':
        return choiceSelect('contentType', 'Content Type', routineContentTypes);
      case 'branch_from_account':
        return (
          <>
            <TextInput
              label="Source Account"
              description="Optional: the account to branch out from"
              placeholder="@username"
              value={values.sourceAccount}
              onChange={(event) => set('sourceAccount', event.currentTarget.value)}
            />
            {countInput('branchDepth', 'Branch Depth', routineBounds.branchDepth, '1 to 5')}
            {engagementRateInput}
          </>
        );
      case 'engage_comments':
        return (
          <>
            {countInput('targetPosts', 'Target Posts', routineBounds.targetPosts)}
            {engagementRateInput}
            <CommentsByVaNote />
          </>
        );
    }
  }

  return (
    <ModalForm
      opened={opened}
      onClose={onClose}
      title="Add Routine"
      size="lg"
      onSubmit={submit}
      busy={create.isPending}
      submitLabel="Add Routine"
      submitDisabled={noAccounts || !values.type}
    >
      {noAccounts && (
        <Alert color="yellow" title="No linked accounts">
          Link an account to this campaign, or give it a group of phones, before adding routines.
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Select
          label="Routine Type"
          placeholder="Select a type"
          required
          data={addableRoutineTypes.map((value) => ({ value, label: routineTypeLabels[value] }))}
          value={values.type}
          onChange={(value) => set('type', addableRoutineTypes.find((option) => option === value) ?? null)}
        />
        <Select
          label="Account"
          placeholder={noAccounts ? 'No linked accounts' : 'Select an account'}
          required
          disabled={noAccounts}
          data={[
            ...(campaign.groupId ? [{ value: GROUP_ACCOUNTS, label: "Every account on the group's phones" }] : []),
            ...linkedAccounts.map((account) => ({ value: account.id, label: `@${account.username}` })),
          ]}
          value={values.accountId}
          onChange={(value) => set('accountId', value)}
        />
        {values.type && typeSettings(values.type)}
        {countInput('intensity', 'Intensity', routineBounds.intensity, '1 (gentle) to 10 (aggressive)')}
      </SimpleGrid>
      <Text size="sm" aria-live="polite">
        Estimated duration: <b>{duration === null ? '—' : `${duration} min`}</b>
      </Text>
    </ModalForm>
  );
}
