/**
 * The peer of the floors' round-trip measurement (floors.ts), run with child_process.fork: a TCP echo server on
 * 127.0.0.1 in its own process, as the bench broker is, so one round trip to it wakes two processes (the measuring
 * client and this one) like a PRODUCE to the broker does. It sends `{ port }` over the IPC channel once listening
 * and exits when the channel closes.
 */
import net from 'node:net';

const server = net.createServer((socket) => {
  socket.setNoDelay(true);
  socket.on('data', (chunk) => socket.write(chunk));
  socket.on('error', () => socket.destroy());
});
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as net.AddressInfo).port });
});
process.on('disconnect', () => process.exit(0));
