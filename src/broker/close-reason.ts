/** Why a client connection closed, as ServerConnection records it and the broker reports it. */
export type CloseReason =
  | 'goodbye'
  | 'peer-closed'
  | 'socket-error'
  | 'protocol-error'
  | 'handshake-timeout'
  | 'read-deadline'
  | 'heartbeat-timeout'
  | 'pending_send_too_large'
  | 'send-deadline'
  | 'handler-requested'
  | 'broker-stopping';
