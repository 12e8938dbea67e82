import { useRef, useState } from 'react';
import { Button, FileButton, Group, Input, Stack, Text } from '@mantine/core';
import { IconUpload } from '@tabler/icons-react';
import { uploadLimits } from '@farm/contracts';
import { errorToast, toast } from '../../../shared/toast';
import { ImageThumbs } from '../../../shared/uploads/ImageThumbs';
import { uploadedMessage } from '../../../shared/uploads/ImageDropzone';
import { checkFiles, imageRestrictions, summariseErrors, uploadMessages, uploadPrivateObject } from '../../../shared/uploads/uploads';

export interface ProfileImagesFieldProps {
  value: readonly string[];
  onChange: (paths: string[]) => void;
  error?: string;
}

/** Tinder profile images: 2 to 6, uploaded one file at a time to private storage, each removable. */
export function ProfileImagesField({ value, onChange, error }: ProfileImagesFieldProps) {
  const [busy, setBusy] = useState(false);
  // Cleared after each pick so that choosing the same file again still uploads it.
  const resetRef = useRef<() => void>(null);
  const full = value.length >= uploadLimits.maxTinderImages;

  async function pick(file: File | null): Promise<void> {
    resetRef.current?.();
    if (!file) return;
    const { accepted, errors } = checkFiles([file], { ...imageRestrictions, maxFiles: uploadLimits.maxTinderImages }, value.length);
    const chosen = accepted[0];
    if (!chosen) {
      errorToast('Upload Error', summariseErrors(errors));
      return;
    }
    setBusy(true);
    try {
      const { objectPath } = await uploadPrivateObject(chosen);
      onChange([...value, objectPath]);
      toast('Images Uploaded', uploadedMessage(1));
    } catch {
      errorToast('Upload Error', uploadMessages.failed(chosen.name));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Input.Wrapper
      label="Profile Images"
      description={`${uploadLimits.minTinderImages} to ${uploadLimits.maxTinderImages} images, one at a time`}
      error={error}
    >
      <Stack gap="xs" mt={4}>
        <ImageThumbs paths={value} onRemove={(index) => onChange(value.filter((_, at) => at !== index))} />
        <Group gap="sm">
          <FileButton onChange={(file) => void pick(file)} accept="image/*" disabled={full || busy} resetRef={resetRef}>
            {(props) => (
              <Button {...props} variant="default" size="xs" leftSection={<IconUpload size={14} />} loading={busy} disabled={full}>
                Upload Image
              </Button>
            )}
          </FileButton>
          <Text size="xs" c="dimmed" aria-live="polite">
            {value.length} of {uploadLimits.maxTinderImages}
          </Text>
        </Group>
      </Stack>
    </Input.Wrapper>
  );
}
