/**
 * Who counts as an operator for password resets: an operator, and anyone who was one in the last
 * OPERATOR_RESET_DAYS. Otherwise one operator could demote a peer to VA, make the peer's reset link alone, take the
 * account and promote it back; a demoted peer's reset takes two operators, as an operator's does.
 */
import { OPERATOR_RESET_DAYS } from '@farm/contracts';
import type { Role } from '@farm/sql';

export function operatorForResets(member: { role: Role; lastOperatorAt: Date | null }, now = new Date()): boolean {
  if (member.role === 'operator') return true;
  return member.lastOperatorAt !== null && now.getTime() - member.lastOperatorAt.getTime() < OPERATOR_RESET_DAYS * 24 * 3600_000;
}
