/** Toasts: one visible at a time, a new one replaces the older, 5000 ms (SPEC §9). */
import { notifications } from '@mantine/notifications';

export const TOAST_DURATION = 5000;

export function toast(title: string, message?: string, options: { destructive?: boolean } = {}): void {
  notifications.clean();
  notifications.show({
    title,
    message: message ?? '',
    color: options.destructive ? 'red' : 'teal',
    autoClose: TOAST_DURATION,
  });
}

export function errorToast(title: string, message: string): void {
  toast(title, message, { destructive: true });
}
