import { Alert, Box, Button, List, Stack, Text, Title } from '@mantine/core';
import { useRef } from 'react';

export interface JsonProblem {
  line: number;
  /** Where in the document (`steps.3.target`), or '' for a syntax error. */
  path: string;
  message: string;
}

export interface JsonPaneProps {
  text: string;
  onChange: (text: string) => void;
  problems: JsonProblem[];
}

const LINE_HEIGHT = 20;

/** "Line 14: steps.3.target: …" as a person reads it. */
export const problemText = (problem: JsonProblem) => `Line ${problem.line}: ${problem.path ? `${problem.path}: ` : ''}${problem.message}`;

/**
 * The recipe's raw JSON: a plain textarea beside a gutter of line numbers, the lines with problems marked there, and
 * the problems listed under it (each moves the cursor to its line).
 */
export function JsonPane({ text, onChange, problems }: JsonPaneProps) {
  const area = useRef<HTMLTextAreaElement>(null);
  const lines = text.split('\n');
  const marked = new Set(problems.map((problem) => problem.line));
  const longest = lines.reduce((most, line) => Math.max(most, line.length), 0);

  const goTo = (line: number) => {
    const element = area.current;
    if (!element) return;
    const start = lines.slice(0, line - 1).reduce((sum, item) => sum + item.length + 1, 0);
    element.focus();
    element.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
    element.parentElement?.parentElement?.scrollTo({ top: Math.max(0, (line - 5) * LINE_HEIGHT) });
  };

  return (
    <Stack gap="xs" component="section" aria-labelledby="recipe-json-title" style={{ minWidth: 0 }}>
      <Title order={2} fz="md" id="recipe-json-title">
        JSON
      </Title>
      <Box
        style={{
          border: '1px solid var(--mantine-color-default-border)',
          borderRadius: 'var(--mantine-radius-sm)',
          maxHeight: '70vh',
          overflow: 'auto',
          maxWidth: '100%',
        }}
      >
        <div
          style={{ display: 'flex', minWidth: 'fit-content', fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13, lineHeight: `${LINE_HEIGHT}px` }}
        >
          <div
            aria-hidden
            style={{
              textAlign: 'right',
              padding: '8px 6px',
              userSelect: 'none',
              background: 'var(--mantine-color-default-hover)',
              color: 'var(--mantine-color-dimmed)',
              position: 'sticky',
              left: 0,
            }}
          >
            {lines.map((_, index) => {
              const number = index + 1;
              const bad = marked.has(number);
              return (
                <div
                  // biome-ignore lint/suspicious/noArrayIndexKey: a gutter row is its line number
                  key={index}
                  data-problem={bad || undefined}
                  style={bad ? { background: 'var(--mantine-color-red-light)', color: 'var(--mantine-color-red-light-color)', fontWeight: 700 } : undefined}
                >
                  {bad ? `! ${number}` : number}
                </div>
              );
            })}
          </div>
          <textarea
            ref={area}
            aria-label="Recipe JSON"
            aria-invalid={problems.length > 0}
            aria-describedby={problems.length > 0 ? 'recipe-json-problems' : undefined}
            spellCheck={false}
            wrap="off"
            value={text}
            onChange={(event) => onChange(event.currentTarget.value)}
            style={{
              flex: 1,
              border: 0,
              outlineOffset: -2,
              resize: 'none',
              padding: 8,
              margin: 0,
              font: 'inherit',
              lineHeight: 'inherit',
              whiteSpace: 'pre',
              overflow: 'hidden',
              height: lines.length * LINE_HEIGHT + 16,
              width: `max(100%, ${longest + 3}ch)`,
              minWidth: `${longest + 3}ch`,
              background: 'var(--mantine-color-body)',
              color: 'var(--mantine-color-text)',
            }}
          />
        </div>
      </Box>
      {problems.length > 0 ? (
        <Alert color="red" variant="light" title={problems.length === 1 ? '1 problem' : `${problems.length} problems`} id="recipe-json-problems">
          <List size="sm" spacing={2}>
            {problems.map((problem) => (
              <List.Item key={`${problem.line}:${problem.path}:${problem.message}`}>
                <Button
                  variant="subtle"
                  color="red"
                  size="compact-sm"
                  onClick={() => goTo(problem.line)}
                  styles={{ label: { whiteSpace: 'normal', textAlign: 'left' } }}
                  h="auto"
                >
                  {problemText(problem)}
                </Button>
              </List.Item>
            ))}
          </List>
        </Alert>
      ) : (
        <Text size="sm" c="dimmed" role="status">
          The recipe reads well by the schema.
        </Text>
      )}
    </Stack>
  );
}
