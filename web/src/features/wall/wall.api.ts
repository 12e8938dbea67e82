import type { WallSnapshot } from '@farm/contracts';
import { apiRequest } from '../../shared/api';
import { withQuery } from '../../shared/query';

/** The wall's snapshot: by a wall link's token, or (without one) as the signed-in member; every phone or one group's. */
export function fetchWallSnapshot(token: string | null, signal?: AbortSignal, groupId: string | null = null): Promise<WallSnapshot> {
  return apiRequest<WallSnapshot>(withQuery('/api/wall', { token, groupId }), { signal });
}

/** A screenshot's address for this wall: a wall link reads the image with its token, a member with the cookie. */
export function wallImageUrl(url: string, token: string | null): string {
  if (!token) return url;
  return `${url}${url.includes('?') ? '&' : '?'}wall=${encodeURIComponent(token)}`;
}
