import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Kafka's own Java clients for the tests (test/harness/java-clients.js compiles and runs this):
 *
 *   consumer BOOTSTRAP GROUP TOPIC MAX PROTOCOL [stay]
 *     a KafkaConsumer with group.protocol=PROTOCOL (consumer: KIP-848; classic), earliest reset,
 *     no auto commit; reads until MAX records (0: until it holds every partition of TOPIC and is at
 *     the end of each), commits them (commitSync), prints each record
 *     (`record <partition> <offset> <value>`) and `committed`; with `stay` it keeps its membership
 *     (polling) until its standard input closes, then leaves.
 *   share BOOTSTRAP GROUP TOPIC MAX
 *     sets the share group's share.auto.offset.reset=earliest, then a KafkaShareConsumer reads
 *     and acknowledges MAX records (commitSync), prints them and `committed`, and leaves.
 *
 * Every line goes to standard output; the process exits 0 when done, 1 on an error.
 */
public final class GroupClients {
  private static volatile boolean stdinClosed = false;

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    String bootstrap = args[1];
    String group = args[2];
    String topic = args[3];
    int max = Integer.parseInt(args[4]);
    if (mode.equals("consumer")) consumer(bootstrap, group, topic, max, args[5], args.length > 6 && args[6].equals("stay"));
    else if (mode.equals("share")) share(bootstrap, group, topic, max);
    else throw new IllegalArgumentException("unknown mode " + mode);
    System.out.flush();
  }

  private static Properties common(String bootstrap, String group) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", group);
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    return p;
  }

  private static void consumer(String bootstrap, String group, String topic, int max, String protocol, boolean stay) throws Exception {
    Properties p = common(bootstrap, group);
    p.put("group.protocol", protocol);
    p.put("auto.offset.reset", "earliest");
    p.put("enable.auto.commit", "false");
    p.put("isolation.level", "read_committed");
    if (protocol.equals("classic")) p.put("session.timeout.ms", "10000");
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
      c.subscribe(List.of(topic), new ConsumerRebalanceListener() {
        public void onPartitionsRevoked(Collection<TopicPartition> parts) {}
        public void onPartitionsAssigned(Collection<TopicPartition> parts) {
          System.out.println("assigned " + parts.size());
          System.out.flush();
        }
      });
      int n = 0;
      while (max > 0 ? n < max : !atEnd(c, topic)) {
        java.util.Set<TopicPartition> rewound = new java.util.HashSet<>();
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
          if (max > 0 && n >= max) {
            // past MAX: back to the first record not read, which the next consumer of the group reads
            TopicPartition tp = new TopicPartition(r.topic(), r.partition());
            if (rewound.add(tp)) c.seek(tp, r.offset());
            continue;
          }
          n++;
          System.out.println("record " + r.partition() + " " + r.offset() + " " + r.value());
        }
      }
      c.pause(c.assignment());
      c.commitSync();
      System.out.println("committed");
      System.out.flush();
      if (stay) {
        Thread t = new Thread(() -> {
          try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in))) {
            while (in.readLine() != null) { }
          } catch (Exception e) { }
          stdinClosed = true;
        });
        t.setDaemon(true);
        t.start();
        while (!stdinClosed) {
          c.pause(c.assignment());
          c.poll(Duration.ofMillis(200));
        }
      }
    }
    System.out.println("left");
  }

  /** Whether the consumer holds every partition of the topic and its position is at the end of each (MAX 0: read to the end). */
  private static boolean atEnd(KafkaConsumer<String, String> c, String topic) {
    java.util.Set<TopicPartition> mine = c.assignment();
    if (mine.isEmpty() || mine.size() != c.partitionsFor(topic).size()) return false;
    Map<TopicPartition, Long> ends = c.endOffsets(mine);
    for (TopicPartition tp : mine) if (c.position(tp) < ends.get(tp)) return false;
    return true;
  }

  private static void share(String bootstrap, String group, String topic, int max) throws Exception {
    Properties a = new Properties();
    a.put("bootstrap.servers", bootstrap);
    try (Admin admin = Admin.create(a)) {
      ConfigResource res = new ConfigResource(ConfigResource.Type.GROUP, group);
      admin.incrementalAlterConfigs(Map.of(res, List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET)))).all().get();
    }
    Properties p = common(bootstrap, group);
    try (KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p)) {
      c.subscribe(List.of(topic));
      int n = 0;
      while (n < max) {
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
          n++;
          System.out.println("record " + r.partition() + " " + r.offset() + " " + r.value());
        }
      }
      c.commitSync();
      System.out.println("committed");
    }
    System.out.println("left");
  }
}
