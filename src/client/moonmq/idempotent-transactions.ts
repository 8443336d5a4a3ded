/** A durable idempotent sink's transaction requests, in order with its sends (BEGIN_TXN, TXN_OFFSET_COMMIT, END_TXN). */
import { BeginTxnRequest } from '../../protocol/messages/begin-txn.js';
import { OkReply } from '../../protocol/messages/control.js';
import { EndTxnRequest } from '../../protocol/messages/end-txn.js';
import { TxnOffsetCommitRequest } from '../../protocol/messages/txn-offset-commit.js';
import type { SinkTransactions } from '../producer/sink.js';
import type { ProducerIdentity } from './idempotent-rules.js';
import type { Session } from './session.js';

export interface TransactionHost {
  exclusive<T>(request: (session: Session, id: ProducerIdentity) => Promise<T>, retry: boolean): Promise<T>;
  holdSession: boolean;
  transactionEnded(): void;
}

export function sinkTransactions(sink: TransactionHost): SinkTransactions {
  return {
    begin: async () => {
      await sink.exclusive((session) => session.conn.request(BeginTxnRequest, {}, OkReply), true);
      sink.holdSession = true;
    },
    sendOffsets: async (group, offsets) => {
      const message = { group, offsets: [...offsets] };
      await sink.exclusive((session) => session.conn.request(TxnOffsetCommitRequest, message, OkReply), false);
    },
    end: async (commit) => {
      // The END_TXN may be resent on a resumed session: a repeated decision tells the outcome.
      sink.holdSession = false;
      try {
        await sink.exclusive((session) => session.conn.request(EndTxnRequest, { commit }, OkReply), true);
      } finally {
        sink.transactionEnded();
      }
    },
  };
}
