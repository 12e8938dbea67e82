import { z } from 'zod';
import { post } from './content.contract.ts';
import { task } from './fleet.contract.ts';

/** What answering a question about an unconfirmed post changed: the question, settled, and the post as it is now. */
export const taskAnswerResult = z.object({ task, post: post.nullable() });
export type TaskAnswerResult = z.infer<typeof taskAnswerResult>;
