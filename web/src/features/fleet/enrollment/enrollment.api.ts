/** Connecting a phone of its own: the one-time code its agent exchanges for a credential, and revoking that credential. */
import type { EnrollmentCode } from '@farm/contracts';
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from '../../../shared/api';
import { useInvalidate } from '../../../shared/invalidate';
import { deviceReads } from '../../devices/devices.api';

/** A one-time code the phone's agent exchanges for its credential; a new one voids the one before. */
export function useIssueEnrollment() {
  return useMutation({
    mutationFn: (deviceId: string) => apiRequest<EnrollmentCode>(`/api/devices/${deviceId}/enrollment`, { method: 'POST' }),
  });
}

/** Revokes the phone's credential: its agent is cut off at once and must enroll again. */
export function useRevokeCredential() {
  const invalidate = useInvalidate();
  return useMutation({
    mutationFn: (deviceId: string) => apiRequest<void>(`/api/devices/${deviceId}/credentials`, { method: 'DELETE' }),
    onSuccess: () => invalidate(...deviceReads),
  });
}
