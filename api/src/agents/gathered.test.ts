import { describe, expect, it } from 'vitest';
import { Gathered } from './gathered.ts';

/** A batch writer the test lets finish: each batch it was given, and how to end it. */
function writer() {
  const batches: number[][] = [];
  const ends: ((fail?: Error) => void)[] = [];
  const write = (items: number[]) => {
    batches.push(items);
    return new Promise<string[]>((resolve, reject) => ends.push((fail) => (fail ? reject(fail) : resolve(items.map((item) => `answer ${item}`)))));
  };
  return { batches, ends, write };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('gathered calls', () => {
  it('writes a call at once when nothing is being written, and those that come meanwhile together next', async () => {
    const { batches, ends, write } = writer();
    const gathered = new Gathered(write);
    const first = gathered.run(1);
    expect(batches).toEqual([[1]]);
    const waiting = [gathered.run(2), gathered.run(3), gathered.run(4)];
    await turn();
    expect(batches).toEqual([[1]]);
    ends.shift()!();
    expect(await first).toBe('answer 1');
    await turn();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    ends.shift()!();
    expect(await Promise.all(waiting)).toEqual(['answer 2', 'answer 3', 'answer 4']);
    // Idle again: the next call goes at once.
    void gathered.run(5);
    expect(batches).toEqual([[1], [2, 3, 4], [5]]);
    ends.shift()!();
    await gathered.close();
  });

  it('fails each caller of a batch that fails, and goes on with the next', async () => {
    const { batches, ends, write } = writer();
    const gathered = new Gathered(write);
    const first = gathered.run(1);
    const second = [gathered.run(2), gathered.run(3)];
    ends.shift()!(new Error('connection lost'));
    await expect(first).rejects.toThrow('connection lost');
    await turn();
    expect(batches).toEqual([[1], [2, 3]]);
    ends.shift()!();
    expect(await Promise.all(second)).toEqual(['answer 2', 'answer 3']);
  });

  it('writes at most its batch size at once', async () => {
    const { batches, ends, write } = writer();
    const gathered = new Gathered(write, 2);
    const calls = [1, 2, 3, 4, 5].map((item) => gathered.run(item));
    for (let i = 0; i < 3; i++) {
      await turn();
      ends.shift()!();
    }
    expect(await Promise.all(calls)).toHaveLength(5);
    expect(batches).toEqual([[1], [2, 3], [4, 5]]);
  });
});
