import { useEffect, useState } from 'react';
import { Button, Group, Select, Stack, TextInput, Textarea } from '@mantine/core';
import { uploadLimits } from '@farm/api/contracts';
import { serverMessageOr } from '../../../shared/api';
import { toDateTimeLocal } from '../../../shared/format';
import { errorToast, toast } from '../../../shared/toast';
import { FormModal } from '../../../shared/ui/FormModal';
import { ImageDropzone } from '../../../shared/uploads/ImageDropzone';
import { ImageThumbs } from '../../../shared/uploads/ImageThumbs';
import { formatBytes, imageRestrictions, uploadObjectPath } from '../../../shared/uploads/uploads';
import { useCurrentUser } from '../../auth/auth.api';
import { useAccountsList, useCampaignsList, useCreatePost } from '../content.api';
import {
  NO_CAMPAIGN,
  buildPostPayload,
  emptyPostForm,
  postFieldErrors,
  postStatusOptions,
  postableAccounts,
  postableCampaigns,
  type PostFieldErrors,
  type PostFormValues,
} from '../content.form';

/** The contract's cap on media per post. */
export const MAX_POST_MEDIA = 10;
export const postCreateFailure = 'Failed to create post';

export interface CreatePostModalProps {
  opened: boolean;
  onClose: () => void;
}

export function CreatePostModal({ opened, onClose }: CreatePostModalProps) {
  const me = useCurrentUser();
  const accounts = useAccountsList();
  const campaigns = useCampaignsList();
  const create = useCreatePost();
  const [values, setValues] = useState<PostFormValues>(emptyPostForm);
  const [media, setMedia] = useState<string[]>([]);
  const [errors, setErrors] = useState<PostFieldErrors>({});

  useEffect(() => {
    if (!opened) return;
    setValues(emptyPostForm());
    setMedia([]);
    setErrors({});
  }, [opened]);

  function set<K extends keyof PostFormValues>(key: K, value: PostFormValues[K]): void {
    setValues((current) => ({ ...current, [key]: value }));
    setErrors((current) => ({ ...current, [key]: undefined }));
  }

  function submit(): void {
    const body = buildPostPayload({ ...values, mediaUrls: media }, me?.id);
    const found = postFieldErrors(body);
    if (Object.keys(found).length > 0) {
      setErrors(found);
      return;
    }
    create.mutate(body, {
      onSuccess: () => {
        toast('Post Created', 'Your post has been created successfully');
        onClose();
      },
      onError: (error) =>
        errorToast('Error', serverMessageOr(error, postCreateFailure)),
    });
  }

  const accountOptions = postableAccounts(accounts.data ?? []).map((account) => ({
    value: account.id,
    label: `${account.username} (${account.platform})`,
  }));
  const campaignOptions = [
    { value: NO_CAMPAIGN, label: 'None' },
    ...postableCampaigns(campaigns.data ?? []).map((campaign) => ({ value: campaign.id, label: campaign.name })),
  ];

  return (
    <FormModal opened={opened} onClose={onClose} title="Create Post" size="lg">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
        noValidate
      >
        <Stack gap="md">
          <Select
            label="Account"
            placeholder={accounts.isPending ? 'Loading accounts...' : 'Select an active account'}
            required
            searchable
            nothingFoundMessage="No active accounts"
            data={accountOptions}
            value={values.accountId}
            onChange={(value) => set('accountId', value)}
            error={errors.accountId}
          />
          <Select
            label="Campaign"
            description="Optional"
            data={campaignOptions}
            allowDeselect={false}
            value={values.campaignId}
            onChange={(value) => set('campaignId', value ?? NO_CAMPAIGN)}
          />
          <Textarea
            label="Caption"
            placeholder="Write your caption..."
            required
            autosize
            minRows={3}
            maxRows={10}
            value={values.caption}
            onChange={(event) => set('caption', event.currentTarget.value)}
            error={errors.caption}
          />
          <TextInput
            label="Hashtags"
            description="Optional, space-separated; only words starting with # are kept"
            placeholder="#travel #food"
            value={values.hashtags}
            onChange={(event) => set('hashtags', event.currentTarget.value)}
            error={errors.hashtags}
          />
          <Select
            label="Status"
            data={postStatusOptions}
            allowDeselect={false}
            value={values.status}
            onChange={(value) => {
              const status = postStatusOptions.find((option) => option.value === value)?.value;
              if (status) set('status', status);
            }}
          />
          {values.status === 'scheduled' && (
            <TextInput
              type="datetime-local"
              label="Schedule Date & Time"
              required
              min={toDateTimeLocal(new Date().toISOString())}
              value={values.scheduledAt}
              onChange={(event) => set('scheduledAt', event.currentTarget.value)}
              error={errors.scheduledAt}
            />
          )}
          <ImageDropzone
            label="Media (optional)"
            restrictions={{ ...imageRestrictions, maxFiles: MAX_POST_MEDIA }}
            held={media.length}
            upload={uploadObjectPath}
            onUploaded={(files) =>
              setMedia((current) => [...current, ...files.map((file) => file.path)].slice(0, MAX_POST_MEDIA))
            }
            hint={`Up to ${MAX_POST_MEDIA} images, ${formatBytes(uploadLimits.maxFileSize)} each`}
          />
          <ImageThumbs paths={media} onRemove={(index) => setMedia((current) => current.filter((_, at) => at !== index))} />
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose} disabled={create.isPending}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create Post
            </Button>
          </Group>
        </Stack>
      </form>
    </FormModal>
  );
}
