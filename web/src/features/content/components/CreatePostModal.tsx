import { useCallback } from 'react';
import { refusalMessage } from '../../../shared/refusal';
import type { Post, UpdatePostBody } from '@farm/contracts';
import { Select, TextInput, Textarea } from '@mantine/core';
import { uploadLimits } from '@farm/contracts';
import { toDateTimeLocal } from '../../../shared/format';
import { errorToast, toast } from '../../../shared/toast';
import { ModalForm, useModalForm } from '../../../shared/ui/FormModal';
import { ImageDropzone } from '../../../shared/uploads/ImageDropzone';
import { ImageThumbs } from '../../../shared/uploads/ImageThumbs';
import { formatBytes, imageRestrictions, uploadObjectPath } from '../../../shared/uploads/uploads';
import { useCurrentUser } from '../../auth/auth.api';
import { useAccountsList, useCampaignsList, useCreatePost, useUpdatePost } from '../content.api';
import {
  NO_CAMPAIGN,
  buildPostPayload,
  emptyPostForm,
  postFieldErrors,
  postStatusOptions,
  postableAccounts,
  postableCampaigns,
  type PostFormValues,
} from '../content.form';

/** The contract's cap on media per post. */
export const MAX_POST_MEDIA = 10;
export const postCreateFailure = 'Failed to create post';

export interface CreatePostModalProps {
  opened: boolean;
  onClose: () => void;
  /** Edit this post (a draft, scheduled or failed one) instead of creating one. */
  post?: Post | null;
  /** Create a scheduled post at this datetime-local value (a day clicked on the calendar). */
  scheduleAt?: string | null;
}

/** The form's values for an existing post; a failed post is edited towards a new schedule. */
function formOf(post: Post): PostFormValues {
  return {
    accountId: post.accountId,
    campaignId: post.campaignId ?? NO_CAMPAIGN,
    caption: post.caption,
    hashtags: post.hashtags.join(' '),
    status: post.status === 'draft' ? 'draft' : post.status === 'published' ? 'published' : 'scheduled',
    scheduledAt: toDateTimeLocal(post.scheduledAt),
    mediaUrls: [...post.mediaUrls],
  };
}

export function CreatePostModal({ opened, onClose, post = null, scheduleAt = null }: CreatePostModalProps) {
  const me = useCurrentUser();
  const accounts = useAccountsList();
  const campaigns = useCampaignsList();
  const create = useCreatePost();
  const update = useUpdatePost();
  const initial = useCallback(
    (): PostFormValues => (post ? formOf(post) : scheduleAt ? { ...emptyPostForm(), status: 'scheduled' as const, scheduledAt: scheduleAt } : emptyPostForm()),
    [post, scheduleAt],
  );
  const { values, errors, set, setValues, setErrors } = useModalForm(opened, initial);
  const media = values.mediaUrls;
  const setMedia = (change: (current: string[]) => string[]) => setValues((current) => ({ ...current, mediaUrls: change(current.mediaUrls) }));
  const editing = post !== null;
  const readOnly = post?.status === 'published';

  function submit(): void {
    const body = buildPostPayload(values, me?.id);
    const found = postFieldErrors(body);
    if (Object.keys(found).length > 0) {
      setErrors(found);
      return;
    }
    if (post) {
      const patch: UpdatePostBody = {
        accountId: body.accountId,
        campaignId: body.campaignId ?? null,
        caption: body.caption,
        hashtags: body.hashtags ?? [],
        mediaUrls: body.mediaUrls ?? [],
      };
      if (body.status !== post.status) patch.status = body.status;
      if (body.status === 'scheduled') patch.scheduledAt = body.scheduledAt ?? null;
      update.mutate(
        { id: post.id, body: patch },
        {
          onSuccess: () => {
            toast('Post Updated', 'Your changes have been saved');
            onClose();
          },
          onError: (error) => errorToast('Error', refusalMessage(error, 'Failed to update post')),
        },
      );
      return;
    }
    create.mutate(body, {
      onSuccess: () => {
        toast('Post Created', 'Your post has been created successfully');
        onClose();
      },
      onError: (error) => errorToast('Error', refusalMessage(error, postCreateFailure)),
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
    <ModalForm
      opened={opened}
      onClose={onClose}
      title={editing ? (readOnly ? 'Published Post' : 'Edit Post') : 'Create Post'}
      size="lg"
      onSubmit={submit}
      busy={create.isPending || update.isPending}
      cancelLabel={readOnly ? 'Close' : 'Cancel'}
      submitLabel={
        readOnly ? null : editing ? (post?.status === 'failed' && values.status === 'scheduled' ? 'Retry at this time' : 'Save Changes') : 'Create Post'
      }
    >
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
        onUploaded={(files) => setMedia((current) => [...current, ...files.map((file) => file.path)].slice(0, MAX_POST_MEDIA))}
        hint={`Up to ${MAX_POST_MEDIA} images, ${formatBytes(uploadLimits.maxFileSize)} each`}
      />
      <ImageThumbs paths={media} onRemove={(index) => setMedia((current) => current.filter((_, at) => at !== index))} />
    </ModalForm>
  );
}
