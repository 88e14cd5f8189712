/**
 * The capture format: a delivery as the receiver answered it, kept as a file (CAPTURE_DIR, the
 * writer) and read back by the tools that replay, export and make fixtures from it, with what a
 * replay must answer and store. Builds on the receiver's door; the receiver knows nothing of it
 * (it calls the hook the composer gives it). Outside src/capture/, import from here.
 */

export { bodyBytes, bodyField } from './capture-body.ts';
export { captureHeaders } from './capture-headers.ts';
export { createCaptureWriter } from './capture-writer.ts';
export {
  type CapturedDelivery,
  CapturedDeliveryError,
  parseCapturedDelivery,
  serialiseCapturedDelivery,
} from './captured-delivery.ts';
export {
  differencesFromExpected,
  type ExpectedAnswer,
  ROW_TABLES,
  type RowTable,
} from './expected-answer.ts';
