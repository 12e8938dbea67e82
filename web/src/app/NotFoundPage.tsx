import { Center } from '@mantine/core';
import { NotFoundContent } from '../shared/ui/NotFound';

export function NotFoundPage() {
  return (
    <Center mih="100dvh" p="md" component="main">
      <NotFoundContent />
    </Center>
  );
}
