import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { InUseBadge } from './InUseBadge';

describe('InUseBadge', () => {
  it('names who is using the phone, and shows nothing when nobody is', () => {
    const { rerender } = render(
      <MantineProvider env="test">
        <InUseBadge name="Maria Santos" />
      </MantineProvider>,
    );
    expect(screen.getByText('In use by Maria Santos')).toBeTruthy();
    rerender(
      <MantineProvider env="test">
        <InUseBadge name={null} />
      </MantineProvider>,
    );
    expect(screen.queryByText(/In use by/)).toBeNull();
  });
});
