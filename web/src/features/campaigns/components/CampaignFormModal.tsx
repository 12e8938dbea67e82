import { useEffect } from 'react';
import { refusalMessage } from '../../../shared/refusal';
import { Checkbox, Divider, Group, NumberInput, Radio, Select, SimpleGrid, Stack, Switch, Text, TextInput, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import { campaignPlatformValues, messages, uploadLimits, type Campaign } from '@farm/contracts';
import { errorToast, toast } from '../../../shared/toast';
import { ModalForm } from '../../../shared/ui/FormModal';
import { useCurrentUser } from '../../auth/auth.api';
import { ImageDropzone } from '../../../shared/uploads/ImageDropzone';
import { ImageThumbs } from '../../../shared/uploads/ImageThumbs';
import { formatBytes, imageRestrictions, uploadCampaignImage } from '../../../shared/uploads/uploads';
import { useGroups } from '../../groups/groups.api';
import { useCreateCampaign, useUpdateCampaign } from '../campaigns.api';
import { CommentsByVaNote } from './CommentsByVaNote';
import {
  campaignToFormValues,
  campaignValidationMessage,
  emptyCampaignForm,
  formToCampaignPayload,
  platformLabels,
  requiredFieldErrors,
  showsEngagementOptions,
  swipeLimits,
  type CampaignFormValues,
  type EngagementAction,
  type SwipeGender,
} from '../campaigns.form';

export const campaignFailure = {
  create: 'Failed to create campaign. Please try again.',
  update: 'Failed to update campaign. Please try again.',
} as const;

const actionOptions: { value: EngagementAction; label: string }[] = [
  { value: 'like', label: 'Like' },
  { value: 'comment', label: 'Comment' },
  { value: 'follow', label: 'Follow' },
];

const genderOptions: { value: SwipeGender; label: string }[] = [
  { value: 'men', label: 'Men' },
  { value: 'women', label: 'Women' },
  { value: 'everyone', label: 'Everyone' },
];

export interface CampaignFormModalProps {
  opened: boolean;
  onClose: () => void;
  /** When given, the dialog edits this campaign (PATCH) instead of creating one. */
  campaign?: Campaign;
  onCreated?: (campaign: Campaign) => void;
}

/** The New Campaign dialog, reused to edit a campaign. */
export function CampaignFormModal({ opened, onClose, campaign, onCreated }: CampaignFormModalProps) {
  const me = useCurrentUser();
  const create = useCreateCampaign();
  const update = useUpdateCampaign();
  const form = useForm<CampaignFormValues>({ initialValues: emptyCampaignForm() });
  const { values } = form;
  const editing = campaign !== undefined;
  const groups = useGroups();

  // The form starts from the campaign each time the dialog opens, so a cancelled edit leaves nothing behind.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the form is reset when the dialog opens or shows another campaign, not on every render of the campaign or the form
  useEffect(() => {
    if (!opened) return;
    const start = campaign ? campaignToFormValues(campaign) : emptyCampaignForm();
    form.setValues(start);
    form.resetDirty(start);
    form.clearErrors();
    // Deliberately keyed on opening and on the campaign's id only: a refetch must not wipe what is being typed.
  }, [opened, campaign?.id]);

  function submit(formValues: CampaignFormValues): void {
    const fieldErrors = requiredFieldErrors(formValues);
    if (Object.keys(fieldErrors).length > 0) {
      form.setErrors(fieldErrors);
      return;
    }
    if (!editing && !me) {
      errorToast('Validation Error', messages.mustBeLoggedIn);
      return;
    }
    const body = formToCampaignPayload(formValues);
    const problem = campaignValidationMessage(body);
    if (problem) {
      errorToast('Validation Error', problem);
      return;
    }
    if (campaign) {
      update.mutate(
        { id: campaign.id, body },
        {
          onSuccess: (updated) => {
            toast('Campaign Updated', `${updated?.name ?? body.name} has been saved.`);
            onClose();
          },
          onError: (error) => errorToast('Error', refusalMessage(error, campaignFailure.update)),
        },
      );
      return;
    }
    create.mutate(body, {
      onSuccess: (created) => {
        toast('Campaign Created', `${created.name} has been created as a draft.`);
        onClose();
        onCreated?.(created);
      },
      onError: (error) => errorToast('Error', refusalMessage(error, campaignFailure.create)),
    });
  }

  const engagement = showsEngagementOptions(values.platform);
  const busy = create.isPending || update.isPending;
  const images = values.autoLikeReferenceImages;

  return (
    <ModalForm
      opened={opened}
      onClose={onClose}
      title={editing ? 'Edit Campaign' : 'New Campaign'}
      size="xl"
      onSubmit={form.onSubmit(submit)}
      busy={busy}
      submitLabel={editing ? 'Save Changes' : 'Create Campaign'}
    >
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <TextInput label="Campaign Name" placeholder="Summer fitness push" required {...form.getInputProps('name')} />
        <Select
          label="Platform"
          data={campaignPlatformValues.map((value) => ({ value, label: platformLabels[value] }))}
          allowDeselect={false}
          required
          {...form.getInputProps('platform')}
        />
        <TextInput label="Niche" placeholder="Fitness" required {...form.getInputProps('niche')} />
        <NumberInput
          label="Daily Engagement Target"
          min={1}
          clampBehavior="none"
          allowDecimal={false}
          allowNegative={false}
          required
          {...form.getInputProps('engagementTarget')}
        />
      </SimpleGrid>
      <Select
        label="Group of phones"
        description="Its group routines run for every account on this group's phones, following phones as they join or leave it."
        placeholder="No group: linked accounts only"
        data={(groups.data ?? []).map((group) => ({
          value: group.id,
          label: `${group.kind === 'tag' ? '#' : ''}${group.name} (${group.deviceIds.length})`,
        }))}
        clearable
        searchable
        value={values.groupId}
        onChange={(value) => form.setFieldValue('groupId', value)}
      />
      <TextInput label="Keywords" description="Comma-separated" placeholder="fitness, workout, gym" {...form.getInputProps('keywords')} />
      <TextInput
        label="Reference Accounts"
        description="Comma-separated usernames"
        placeholder="@coach, @athlete"
        {...form.getInputProps('referenceAccounts')}
      />
      <Textarea label="Custom Lore" autosize minRows={2} maxRows={6} {...form.getInputProps('customLore')} />
      <Textarea label="Guidelines" autosize minRows={2} maxRows={6} {...form.getInputProps('guidelines')} />

      {engagement && (
        <>
          <Divider label="Engagement" labelPosition="left" />
          <Switch label="Search and like" {...form.getInputProps('searchAndLike', { type: 'checkbox' })} />
          {values.searchAndLike && (
            <Stack gap="xs" pl={{ base: 0, sm: 'md' }}>
              <TextInput label="Search Keywords" description="Comma-separated" {...form.getInputProps('searchKeywords')} />
              <Checkbox.Group label="Search and like actions" {...form.getInputProps('searchAndLikeActions')}>
                <Group gap="md" mt={4}>
                  {actionOptions.map((option) => (
                    <Checkbox key={option.value} value={option.value} label={option.label} />
                  ))}
                </Group>
              </Checkbox.Group>
              {values.searchAndLikeActions.includes('comment') ? <CommentsByVaNote /> : null}
            </Stack>
          )}
          <Switch label="Follow account list" {...form.getInputProps('followAccountList', { type: 'checkbox' })} />
          {values.followAccountList && (
            <TextInput
              pl={{ base: 0, sm: 'md' }}
              label="Accounts to Follow"
              description="Comma-separated usernames"
              {...form.getInputProps('accountsToFollow')}
            />
          )}
          <Switch label="Follow from account" {...form.getInputProps('followFromAccount', { type: 'checkbox' })} />
          {values.followFromAccount && (
            <Stack gap="xs" pl={{ base: 0, sm: 'md' }}>
              <TextInput label="Target Accounts" description="Comma-separated usernames" {...form.getInputProps('followTargetAccounts')} />
              <Radio.Group label="Follow their" {...form.getInputProps('followType')}>
                <Group gap="md" mt={4}>
                  <Radio value="followers" label="Followers" />
                  <Radio value="following" label="Following" />
                </Group>
              </Radio.Group>
            </Stack>
          )}
          <Switch label="Engage commenters" {...form.getInputProps('engageCommenters', { type: 'checkbox' })} />
          {values.engageCommenters && (
            <Stack gap="xs" pl={{ base: 0, sm: 'md' }}>
              <Checkbox.Group label="Engage commenters actions" {...form.getInputProps('engageCommentersActions')}>
                <Group gap="md" mt={4}>
                  {actionOptions.map((option) => (
                    <Checkbox key={option.value} value={option.value} label={option.label} />
                  ))}
                </Group>
              </Checkbox.Group>
              {values.engageCommentersActions.includes('comment') ? <CommentsByVaNote /> : null}
            </Stack>
          )}
        </>
      )}

      <Divider label="Auto-like" labelPosition="left" />
      <Switch label="Enable auto-like" {...form.getInputProps('autoLikeEnabled', { type: 'checkbox' })} />
      {values.autoLikeEnabled && (
        <Stack gap="xs" pl={{ base: 0, sm: 'md' }}>
          <Textarea label="Auto-like Guidelines" autosize minRows={2} maxRows={6} {...form.getInputProps('autoLikeGuidelines')} />
          <ImageDropzone
            label="Reference Images"
            restrictions={{ ...imageRestrictions, maxFiles: uploadLimits.maxReferenceImages }}
            held={images.length}
            upload={uploadCampaignImage}
            onUploaded={(files) =>
              form.setFieldValue('autoLikeReferenceImages', (current) =>
                [...current, ...files.map((file) => file.path)].slice(0, uploadLimits.maxReferenceImages),
              )
            }
            hint={`Up to ${uploadLimits.maxReferenceImages} images, ${formatBytes(uploadLimits.maxFileSize)} each`}
          />
          <ImageThumbs
            paths={images}
            onRemove={(index) => form.setFieldValue('autoLikeReferenceImages', (current) => current.filter((_, at) => at !== index))}
          />
        </Stack>
      )}

      {values.platform === 'tinder' && (
        <>
          <Divider label="Auto-swipe" labelPosition="left" />
          <Switch label="Enable auto-swipe" {...form.getInputProps('autoSwipeEnabled', { type: 'checkbox' })} />
          {values.autoSwipeEnabled && (
            <SimpleGrid cols={{ base: 1, sm: 2 }} pl={{ base: 0, sm: 'md' }}>
              <Select label="Gender Preference" data={genderOptions} allowDeselect={false} {...form.getInputProps('swipeGender')} />
              <NumberInput
                label="Distance (km)"
                min={swipeLimits.distanceMin}
                max={swipeLimits.distanceMax}
                allowDecimal={false}
                {...form.getInputProps('swipeDistance')}
              />
              <NumberInput label="Minimum Age" min={swipeLimits.ageMin} max={swipeLimits.ageMax} allowDecimal={false} {...form.getInputProps('swipeAgeMin')} />
              <NumberInput label="Maximum Age" min={swipeLimits.ageMin} max={swipeLimits.ageMax} allowDecimal={false} {...form.getInputProps('swipeAgeMax')} />
              <TextInput label="Bio Keywords" description="Comma-separated" style={{ gridColumn: '1 / -1' }} {...form.getInputProps('swipeBioKeywords')} />
            </SimpleGrid>
          )}
        </>
      )}

      {!editing && (
        <Text size="xs" c="dimmed">
          New campaigns start as drafts; activate them from the campaign list.
        </Text>
      )}
    </ModalForm>
  );
}
