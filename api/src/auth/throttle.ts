/**
 * Login throttling: failed logins are counted per client address, and per client address and account together,
 * never per account alone, so that nobody can lock a person out of their own account by failing on purpose from
 * elsewhere. The counts live where the request limits do (Redis with REDIS_URL, shared by every API instance).
 * The client address is the one the configured proxies vouch for (TRUST_PROXY), so rotating X-Forwarded-For
 * buys no fresh budget.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Limits } from './limits.ts';

export class LoginThrottle {
  constructor(private readonly limits: Limits) {}

  private keys(request: FastifyRequest, account: string) {
    return { address: request.ip, addressAndAccount: `${request.ip}|${account.toLowerCase()}` };
  }

  /** Refuses with 429 (and Retry-After) while this address, or this address for this account, has failed too often. */
  async refuseIfBlocked(request: FastifyRequest, reply: FastifyReply, account: string): Promise<void> {
    const keys = this.keys(request, account);
    await this.limits.refuseIfSpent('loginFailuresAddress', keys.address, reply);
    await this.limits.refuseIfSpent('loginFailures', keys.addressAndAccount, reply);
  }

  /** Counts one failed attempt of this address at this account. */
  async failed(request: FastifyRequest, account: string): Promise<void> {
    const keys = this.keys(request, account);
    await this.limits.count('loginFailuresAddress', keys.address);
    await this.limits.count('loginFailures', keys.addressAndAccount);
  }
}
