// For tools/retention until it imports ./core/deliveries.ts itself.
export { paymentBody } from './core/deliveries.ts';
