import { describe, expect, it } from 'vitest';
import { agentMessages, MAX_SCREENSHOT_BYTES, PROTOCOL_VERSION, serverMessages } from './messages.ts';
import { solidPng } from './agent/simulator.ts';

describe('agent messages', () => {
  it('accepts what a phone sends and refuses what it must not', () => {
    expect(agentMessages['agent.hello'].safeParse({ protocol: PROTOCOL_VERSION, agentVersion: '1', battery: 50 }).success).toBe(true);
    expect(agentMessages['agent.hello'].safeParse({ protocol: 99, agentVersion: '1', battery: 50 }).success).toBe(false);
    expect(agentMessages['agent.heartbeat'].safeParse({ battery: 101, status: 'online' }).success).toBe(false);
    expect(agentMessages['agent.heartbeat'].safeParse({ battery: 10, status: 'offline' }).success).toBe(false);
    expect(agentMessages['task.result'].safeParse({ taskId: 't', attempt: 0, status: 'completed' }).success).toBe(false);
  });

  it('caps screenshots at the protocol size', () => {
    const tooBig = 'A'.repeat(Math.ceil((MAX_SCREENSHOT_BYTES * 4) / 3) + 8);
    expect(agentMessages['agent.screenshot'].safeParse({ mime: 'image/png', data: tooBig }).success).toBe(false);
    const png = solidPng(8, 8, [1, 2, 3]).toString('base64');
    expect(agentMessages['agent.screenshot'].safeParse({ mime: 'image/png', data: png }).success).toBe(true);
  });

  it('draws a real PNG for the simulated screen', () => {
    const png = solidPng(3, 2, [255, 0, 0]);
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(3);
    expect(png.readUInt32BE(20)).toBe(2);
  });

  it('names every server message with its schema', () => {
    expect(Object.keys(serverMessages).sort()).toEqual(['command', 'task.dispatch']);
  });
});
