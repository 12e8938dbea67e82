/** Settings → Alerts: where a webhook may point, checked when it is saved (and again at every send, by the workers). */
import { automation, checkUrl } from '@farm/workers';
import { badRequest } from '../../errors.ts';

/**
 * Refuses a URL that is, or resolves to, a private or local address (unless the farm allows them:
 * ALERTS_ALLOW_PRIVATE=1). A name that does not resolve now is saved with a warning, since DNS may not be there yet;
 * every send checks it again.
 */
export async function checkWebhookUrl(url: string): Promise<{ warning?: string }> {
  const check = await checkUrl(url, { allowPrivate: automation().outboundAllowPrivate });
  if (check.ok) return {};
  if (check.reason === 'unresolved') return { warning: `${check.message} It is saved; alerts are sent once it resolves to a public address.` };
  throw badRequest('url', check.message);
}
