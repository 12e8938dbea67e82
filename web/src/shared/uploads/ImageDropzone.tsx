import '@mantine/dropzone/styles.css';
import { useState } from 'react';
import { Group, Stack, Text } from '@mantine/core';
import { Dropzone, type FileWithPath } from '@mantine/dropzone';
import { IconPhoto, IconUpload, IconX } from '@tabler/icons-react';
import { errorToast, toast } from '../toast';
import { checkFiles, summariseErrors, uploadEach, type UploadedFile, type UploadRestrictions } from './uploads';

export interface ImageDropzoneProps {
  /** Names the drop area for screen readers and shows above it. */
  label: string;
  restrictions: UploadRestrictions;
  /** Files already held, so the count limit holds across several drops. */
  held: number;
  upload: (file: File) => Promise<string>;
  onUploaded: (files: UploadedFile[]) => void;
  /** Toast title after a successful upload; the message carries the count. */
  successTitle?: string;
  /** What the files are called in the success message ('image', 'file'). */
  noun?: string;
  accept?: string[];
  hint?: string;
  disabled?: boolean;
}

export function uploadedMessage(count: number, noun = 'image'): string {
  return `${count} ${noun}${count === 1 ? '' : 's'} uploaded successfully`;
}

/** A drop area that checks files against the spec's restrictions, uploads the rest and reports the outcome. */
export function ImageDropzone({
  label,
  restrictions,
  held,
  upload,
  onUploaded,
  successTitle = 'Images Uploaded',
  noun = 'image',
  accept = ['image/*'],
  hint,
  disabled = false,
}: ImageDropzoneProps) {
  const [busy, setBusy] = useState(false);
  const full = restrictions.maxFiles !== undefined && held >= restrictions.maxFiles;

  async function handle(files: FileWithPath[]): Promise<void> {
    const { accepted, errors } = checkFiles(files, restrictions, held);
    if (accepted.length === 0) {
      if (errors.length > 0) errorToast('Upload Error', summariseErrors(errors));
      return;
    }
    setBusy(true);
    try {
      const { uploaded, failed } = await uploadEach(accepted, upload);
      if (uploaded.length > 0) onUploaded(uploaded);
      const problems = [...errors, ...failed];
      if (problems.length > 0) errorToast('Upload Error', summariseErrors(problems));
      else toast(successTitle, uploadedMessage(uploaded.length, noun));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Stack gap={4}>
      <Text size="sm" fw={500} component="span">
        {label}
      </Text>
      <Dropzone
        // The checks (type, size, count) are ours, so every file reaches handle() and gets the spec's message.
        onDrop={() => undefined}
        onDropAny={(acceptedFiles, rejections) => {
          void handle([...acceptedFiles, ...rejections.map((rejection) => rejection.file)]);
        }}
        accept={accept}
        multiple
        loading={busy}
        disabled={disabled || full}
        aria-label={label}
        inputProps={{ 'aria-label': label }}
      >
        <Group justify="center" gap="md" mih={90} style={{ pointerEvents: 'none' }} wrap="nowrap">
          <Dropzone.Accept>
            <IconUpload size={36} stroke={1.5} aria-hidden />
          </Dropzone.Accept>
          <Dropzone.Reject>
            <IconX size={36} stroke={1.5} aria-hidden />
          </Dropzone.Reject>
          <Dropzone.Idle>
            <IconPhoto size={36} stroke={1.5} aria-hidden />
          </Dropzone.Idle>
          <div>
            <Text size="sm">{full ? `Maximum number of ${noun}s reached` : `Drag ${noun}s here or click to select`}</Text>
            {hint && (
              <Text size="xs" c="dimmed">
                {hint}
              </Text>
            )}
          </div>
        </Group>
      </Dropzone>
    </Stack>
  );
}
