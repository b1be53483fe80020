/**
 * The broker's own answer where kafkajs hides a refusal: why a group's coordinator cannot be
 * found (kafkajs says only "Failed to find group coordinator") and why a topic is missing from
 * the topic list (a principal that may not describe it never sees it listed), each asked again
 * through a short-lived kafkajs cluster object; and a consumer's failure as the
 * NotAuthorizedError naming the ACLs it needs, when the broker refused it.
 */
import type { Kafka } from 'kafkajs';
import { notAuthorized, type AclNeed, type ClusterSettings, type NotAuthorizedError } from './client';
import { internalCluster, type InternalCluster } from './kafkajs-cluster';

/**
 * Why the coordinator of `groupId` cannot be found, as the broker says it (e.g. a
 * GROUP_AUTHORIZATION_FAILED KafkaJSProtocolError), or null when it can: kafkajs replaces the
 * broker's answer with a bare "Failed to find group coordinator".
 */
export async function findCoordinatorProblem(kafka: Kafka, groupId: string): Promise<unknown> {
  const cluster = internalCluster(kafka) as InternalCluster & { brokerPool?: { seedBroker?: { findGroupCoordinator(a: { groupId: string; coordinatorType: number }): Promise<unknown> } } };
  await cluster.connect();
  try {
    const seed = cluster.brokerPool?.seedBroker;
    if (!seed) return null;
    await seed.findGroupCoordinator({ groupId, coordinatorType: 0 });
    return null;
  } catch (e) {
    return e;
  } finally {
    await cluster.disconnect().catch(() => undefined);
  }
}

/**
 * A consumer's failure as a NotAuthorizedError naming `acls` when the broker refused it, or null:
 * kafkajs replaces a refused FindCoordinator of the consumer's group with a bare "Failed to find
 * group coordinator", so then the broker is asked again for its answer.
 */
export async function consumerRefusal(kafka: Kafka, groupId: string, err: unknown, acls: AclNeed[], settings?: ClusterSettings): Promise<NotAuthorizedError | null> {
  const direct = notAuthorized(err, acls, settings);
  if (direct || (err as Error)?.name !== 'KafkaJSGroupCoordinatorNotFound') return direct;
  return notAuthorized(await findCoordinatorProblem(kafka, groupId).catch(() => null), acls, settings);
}

/**
 * Why `topic` is not in the topic list, as the broker says it when asked for that topic alone
 * (TOPIC_AUTHORIZATION_FAILED when the principal may not describe it; UNKNOWN_TOPIC_OR_PARTITION
 * when it does not exist), or null when the broker knows it. A listing of all topics leaves out
 * the ones the principal may not describe; asking through a short-lived cluster object keeps the
 * topic out of the shared client's metadata refreshes (see kafka/topic-reader partitionZeroRange).
 */
export async function findTopicProblem(kafka: Kafka, topic: string): Promise<unknown> {
  const cluster = internalCluster(kafka) as InternalCluster & { brokerPool?: { seedBroker?: { metadata(topics: string[]): Promise<unknown> } } };
  await cluster.connect();
  try {
    const seed = cluster.brokerPool?.seedBroker;
    if (!seed) return null;
    await seed.metadata([topic]);
    return null;
  } catch (e) {
    return e;
  } finally {
    await cluster.disconnect().catch(() => undefined);
  }
}
