/**
 * Talking to the bench's webhook receiver (bench/receiver-server.ts), which runs in a process of
 * its own and records when each message arrived.
 */
import { startBenchServer } from './processes.js';

export function startReceiver() {
  return startBenchServer('receiver-server.ts');
}

export async function receiverStats(url: string) {
  const res = await fetch(`${url}/stats`);
  return (await res.json()) as {
    count: number;
    unique: number;
    duplicates: number;
    arrivals: Record<string, number>;
  };
}

/** When each new message id reached the receiver (epoch ms), in arrival order. */
export async function receiverArrivalTimes(url: string): Promise<number[]> {
  const res = await fetch(`${url}/stats?times=1`);
  return ((await res.json()) as { uniqueTimes: number[] }).uniqueTimes;
}

export async function resetReceiver(url: string): Promise<void> {
  await fetch(`${url}/reset`, { method: 'POST' });
}
