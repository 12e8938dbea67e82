import { ActionIcon, CopyButton, Textarea, TextInput, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

export interface CopyFieldProps {
  label: string;
  value: string;
  /** The copy button's name; 'Copy link' unless told. */
  copyLabel?: string;
  /** Wraps a long value (a command) over several lines instead of scrolling it. */
  multiline?: boolean;
}

/** A read-only value with a copy button, for invitation and wall links, credentials and commands. */
export function CopyField({ label, value, copyLabel = 'Copy link', multiline = false }: CopyFieldProps) {
  const copyButton = (
    <CopyButton value={value} timeout={2000}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? 'Copied' : copyLabel}>
          <ActionIcon variant="subtle" color={copied ? 'teal' : 'gray'} onClick={copy} aria-label={copied ? 'Copied' : copyLabel}>
            {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
          </ActionIcon>
        </Tooltip>
      )}
    </CopyButton>
  );
  if (multiline) {
    return (
      <Textarea
        label={label}
        value={value}
        readOnly
        autosize
        minRows={2}
        onFocus={(event) => event.currentTarget.select()}
        rightSectionWidth={42}
        rightSection={copyButton}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 'var(--mantine-font-size-xs)' } }}
      />
    );
  }
  return <TextInput label={label} value={value} readOnly onFocus={(event) => event.currentTarget.select()} rightSectionWidth={42} rightSection={copyButton} />;
}
