import { Modal, type ModalProps } from '@mantine/core';
import { useIsMobile } from './useIsMobile';

/** A modal that takes the whole screen on phones so long forms stay usable at 375 px. */
export function FormModal(props: ModalProps) {
  const isMobile = useIsMobile();
  return <Modal centered fullScreen={isMobile} closeButtonProps={{ 'aria-label': 'Close' }} {...props} />;
}
