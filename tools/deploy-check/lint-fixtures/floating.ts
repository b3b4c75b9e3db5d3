// A promise nobody awaits, and an async function where a callback's result is ignored: both refused.
import { EventEmitter } from 'node:events';

async function send(): Promise<void> {}

export function fireAndForget(): void {
  send();
}

export function listen(events: EventEmitter): void {
  events.on('message', async () => {
    await send();
  });
}
