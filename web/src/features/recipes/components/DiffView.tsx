import { Box, Text, VisuallyHidden } from '@mantine/core';
import type { RecipeDiff, RecipeDiffLine } from '@farm/contracts';

/** Lines kept around each change; longer runs of kept lines fold into "… N lines unchanged". */
const CONTEXT = 3;

type Row = { line: RecipeDiffLine } | { folded: number; key: string };

export function foldDiff(lines: RecipeDiffLine[], context = CONTEXT): Row[] {
  const near = new Array<boolean>(lines.length).fill(false);
  lines.forEach((line, index) => {
    if (line.kind === 'same') return;
    for (let at = Math.max(0, index - context); at <= Math.min(lines.length - 1, index + context); at += 1) near[at] = true;
  });
  const rows: Row[] = [];
  let run = 0;
  lines.forEach((line, index) => {
    if (near[index]) {
      if (run > 0) rows.push({ folded: run, key: `fold-${index}` });
      run = 0;
      rows.push({ line });
    } else run += 1;
  });
  if (run > 0) rows.push({ folded: run, key: 'fold-end' });
  return rows;
}

const mark = { added: '+', removed: '-', same: ' ' } as const;
const colours = {
  added: { background: 'var(--mantine-color-green-light)', color: 'var(--mantine-color-green-light-color)' },
  removed: { background: 'var(--mantine-color-red-light)', color: 'var(--mantine-color-red-light-color)' },
  same: {},
} as const;

/** A compare of two recipe documents: added and removed lines coloured and marked + and - (read aloud as such). */
export function DiffView({ diff }: { diff: RecipeDiff }) {
  const rows = foldDiff(diff.lines);
  return (
    <div>
      <Text
        size="sm"
        mb="xs"
      >{`${diff.from.label} → ${diff.to.label}: ${diff.added} ${diff.added === 1 ? 'line' : 'lines'} added, ${diff.removed} removed`}</Text>
      {diff.added + diff.removed === 0 ? (
        <Text size="sm" c="dimmed">
          The two documents are the same.
        </Text>
      ) : (
        <Box
          component="ol"
          aria-label={`Changes from ${diff.from.label} to ${diff.to.label}`}
          // It scrolls sideways on a phone: focusable, so the keyboard scrolls it too.
          tabIndex={0}
          m={0}
          p={0}
          style={{
            listStyle: 'none',
            overflow: 'auto',
            maxWidth: '100%',
            fontFamily: 'var(--mantine-font-family-monospace)',
            fontSize: 12,
            border: '1px solid var(--mantine-color-default-border)',
            borderRadius: 'var(--mantine-radius-sm)',
          }}
        >
          {rows.map((row) =>
            'folded' in row ? (
              <li
                key={row.key}
                style={{ padding: '2px 8px', color: 'var(--mantine-color-dimmed)' }}
              >{`… ${row.folded} ${row.folded === 1 ? 'line' : 'lines'} unchanged`}</li>
            ) : (
              <li
                key={`${row.line.oldLine ?? ''}-${row.line.newLine ?? ''}-${row.line.kind}`}
                data-kind={row.line.kind}
                style={{ whiteSpace: 'pre', padding: '0 8px', minWidth: 'fit-content', ...colours[row.line.kind] }}
              >
                <span aria-hidden>{`${mark[row.line.kind]} `}</span>
                {row.line.kind === 'same' ? null : <VisuallyHidden>{row.line.kind === 'added' ? 'Added: ' : 'Removed: '}</VisuallyHidden>}
                {row.line.text}
              </li>
            ),
          )}
        </Box>
      )}
    </div>
  );
}
