// Exits 0 when the Kafka cluster at argv[2] (host:port,...) answers a metadata request listing argv[3] brokers;
// otherwise prints why on stderr and exits 1. Used by scripts/kafka-cluster.sh to know the cluster is up.
import { Admin } from '@platformatic/kafka';

const [bootstrap, want] = [process.argv[2], Number(process.argv[3] ?? 1)];
const admin = new Admin({
  clientId: 'crater-cluster-probe',
  bootstrapBrokers: bootstrap.split(','),
  retries: 0,
  timeout: 5000,
});
try {
  const metadata = await admin.metadata({ topics: [], forceUpdate: true });
  if (metadata.brokers.size < want) {
    console.error(`metadata lists ${metadata.brokers.size} of ${want} brokers`);
    process.exitCode = 1;
  }
} catch (error) {
  console.error(`metadata failed: ${error.message}`);
  process.exitCode = 1;
} finally {
  await admin.close();
}
