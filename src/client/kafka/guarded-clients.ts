/**
 * @platformatic/kafka's Consumer and Producer with one guard: a connection asked for a broker that is not in the
 * cluster's metadata fails with a retriable NetworkError instead of throwing a TypeError.
 *
 * Why: both clients remember their coordinator (the group's, the transaction's) by node id for their whole life
 * and look its address up in the latest metadata. Once that broker dies and the cluster drops it from the metadata,
 * the lookup is undefined and the library dereferences it, a TypeError thrown from inside a callback: from a
 * heartbeat timer it is an uncaught exception that ends the process; a consume-transform-produce across a broker
 * kill died of it. As an error it reaches the caller, who can close the client and open a new one, which finds the
 * new coordinator (group-reader.ts and kafka-producer.ts do).
 */
import {
  type Broker,
  type Callback,
  type Connection,
  Consumer,
  NetworkError,
  Producer,
  kGetConnection,
} from '@platformatic/kafka';

function missing(): NetworkError {
  return new NetworkError('the broker asked for is no longer in the cluster metadata (it left or died)');
}

export class GuardedConsumer extends Consumer<Buffer, Buffer, Buffer, Buffer> {
  override [kGetConnection](broker: Broker | undefined, callback: Callback<Connection>): void {
    if (broker === undefined) {
      callback(missing());
      return;
    }
    super[kGetConnection](broker, callback);
  }
}

export class GuardedProducer extends Producer<Buffer, Buffer, Buffer, Buffer> {
  override [kGetConnection](broker: Broker | undefined, callback: Callback<Connection>): void {
    if (broker === undefined) {
      callback(missing());
      return;
    }
    super[kGetConnection](broker, callback);
  }
}
