import { Anchor, Group, Image, Stack, Text } from '@mantine/core';
import type { HandOverRecord } from '@farm/contracts';

/**
 * The post a phone handed to a VA to comment on: where it is (its address when the phone knew it, the author's
 * profile) and the screen as the phone saw it. The comment is the VA's to write; the phone never types one.
 */
export function HandOverPost({ handOver }: { handOver: HandOverRecord }) {
  return (
    <Stack gap={6} aria-label="The post to comment on">
      <Group gap="md" wrap="wrap">
        {handOver.link ? (
          <Anchor href={handOver.link} target="_blank" rel="noopener noreferrer" size="sm">
            Open the post
          </Anchor>
        ) : (
          <Text size="sm" c="dimmed">
            The phone could not read the post's address: find it by the frame.
          </Text>
        )}
        {handOver.profileUrl ? (
          <Anchor href={handOver.profileUrl} target="_blank" rel="noopener noreferrer" size="sm">
            @{handOver.author}'s profile
          </Anchor>
        ) : null}
      </Group>
      {handOver.frame ? (
        <Image
          src={handOver.frame.url}
          alt={`@${handOver.author}'s post as the phone saw it`}
          w={Math.min(240, handOver.frame.width)}
          fit="contain"
          radius="sm"
          loading="lazy"
        />
      ) : null}
    </Stack>
  );
}
