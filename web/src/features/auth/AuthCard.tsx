import { Box, Center, Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { Logo } from '../../shared/ui/Logo';

/** The centred card shared by login and signup. */
export function AuthCard({ title, subtitle, children }: { title: string; subtitle: string; children: ReactNode }) {
  return (
    <Center mih="100dvh" p="md" component="main">
      <Box w="100%" maw={420}>
        <Stack align="center" gap="xs" mb="lg">
          <Logo />
        </Stack>
        <Paper withBorder shadow="md" p={{ base: 'lg', sm: 'xl' }} radius="md">
          <Stack gap={4} mb="lg" ta="center">
            <Title order={1} fz={26}>
              {title}
            </Title>
            <Text c="dimmed" size="sm">
              {subtitle}
            </Text>
          </Stack>
          {children}
        </Paper>
      </Box>
    </Center>
  );
}
