/** The DLQ envelope codec lives in protocol/ so the client's batch consumer writes the same bytes as NACK does. */
export {
  DLQ_ENVELOPE_VERSION,
  decodeDlqEnvelope,
  encodeDlqEnvelope,
  type DlqEnvelope,
} from '../../protocol/dlq-envelope.js';
