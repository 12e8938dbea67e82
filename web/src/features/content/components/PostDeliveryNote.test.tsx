import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { PostDeliveryNote, postFailureReason } from './PostDeliveryNote';

const failed = { status: 'failed' as const, waitingMessage: null };

describe('why a post failed', () => {
  it('reads "Not confirmed" for a post its phone could not confirm, whatever the phone said', () => {
    expect(postFailureReason({ failureCode: 'post_unconfirmed', failureMessage: 'No "posted" notice in 3 minutes' })).toBe('Not confirmed');
    expect(postFailureReason({ failureCode: 'app_changed', failureMessage: null })).toBe('The app changed: the recipe no longer finds its screens');
    expect(postFailureReason({ failureCode: 'app_version_untested', failureMessage: 'Instagram 999.0 is newer than the recipe' })).toBe(
      'Instagram 999.0 is newer than the recipe',
    );
  });

  it('shows it on the post, with who checks an unconfirmed one', () => {
    render(
      <MantineProvider env="test">
        <PostDeliveryNote post={{ ...failed, failureCode: 'post_unconfirmed', failureMessage: 'Not confirmed' }} />
      </MantineProvider>,
    );
    expect(screen.getByRole('alert').textContent).toBe('Failed: Not confirmed');
    expect(screen.getByText("The app never said it posted: the phone's VA is asked whether it is up.")).toBeTruthy();
  });
});
