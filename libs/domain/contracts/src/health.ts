export interface Health {
  service: string;
  status: 'ok' | 'degraded';
  checks: Record<string, 'ok' | 'down'>;
}
