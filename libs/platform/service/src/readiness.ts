import type { NatsConnection } from '@nats-io/transport-node';

/** Whether `work` settles successfully within `timeoutMs`: a readiness check never hangs on a dead dependency. */
export async function answersWithin(work: () => Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), timeoutMs);
  });
  try {
    await Promise.race([work(), late]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** This process's own NATS connection is open and the server answers a round trip within `timeoutMs`. */
export function natsAnswers(nc: NatsConnection, timeoutMs: number): Promise<boolean> {
  if (nc.isClosed()) return Promise.resolve(false);
  return answersWithin(() => nc.rtt(), timeoutMs);
}
