import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;

/**
 * A Kafka Streams application for the tests (test/harness/java-clients.js compiles and runs it
 * with kafka-streams on the class path):
 *
 *   BOOTSTRAP APPLICATION_ID TOPIC MAX PROTOCOL
 *     a stateless topology reading TOPIC with group.protocol=PROTOCOL (streams: KIP-1071;
 *     classic); once it has seen MAX records it asks for a commit and closes (a clean close commits).
 *     Prints `record <partition> <offset>` per record and `left` at the end.
 */
public final class StreamsApp {
  public static void main(String[] args) throws Exception {
    Properties p = new Properties();
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
    p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, args[4]);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    p.put(StreamsConfig.STATE_DIR_CONFIG, System.getProperty("java.io.tmpdir") + "/streams-app-" + args[1]);
    p.put("consumer.auto.offset.reset", "earliest");
    int max = Integer.parseInt(args[3]);
    AtomicInteger seen = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(1);
    StreamsBuilder b = new StreamsBuilder();
    b.<String, String>stream(args[2]).process(() -> new org.apache.kafka.streams.processor.api.Processor<String, String, Void, Void>() {
      private org.apache.kafka.streams.processor.api.ProcessorContext<Void, Void> ctx;
      public void init(org.apache.kafka.streams.processor.api.ProcessorContext<Void, Void> c) { ctx = c; }
      public void process(org.apache.kafka.streams.processor.api.Record<String, String> r) {
        ctx.recordMetadata().ifPresent((m) -> System.out.println("record " + m.partition() + " " + m.offset()));
        if (seen.incrementAndGet() >= max) {
          ctx.commit();
          done.countDown();
        }
      }
    });
    try (KafkaStreams streams = new KafkaStreams(b.build(), p)) {
      streams.start();
      if (!done.await(120, TimeUnit.SECONDS)) throw new IllegalStateException("saw " + seen.get() + " of " + max + " records in 120 s");
      // close() commits what the tasks processed before it leaves the group
    }
    System.out.println("left");
  }
}
