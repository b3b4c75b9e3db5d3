export const GATEWAY_LOGGER = Symbol('GATEWAY_LOGGER');
export const GATEWAY_REDIS = Symbol('GATEWAY_REDIS');
export const GATEWAY_NATS = Symbol('GATEWAY_NATS');
