package dev.skipjack;

import dev.skipjack.support.EveryBackendTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * F-12 item "around every job": tags and metadata given at enqueue are stored with the job, read
 * back exactly, and tags filter the query API and the bulk actions that take a filter.
 */
class TagsAndMetadataTest extends EveryBackendTest {

    record Mail(String to) {
    }

    static final JobKind<Mail> MAIL = JobKind.of("mail", Mail.class);
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    private Skipjack producer() {
        return client(builder().kind(MAIL));
    }

    private static List<Long> ids(JobPage page) {
        return page.jobs().stream().map(JobInfo::id).toList();
    }

    @Test
    void tagsAndMetadataAreStoredAndReadBackExactly() throws Exception {
        Skipjack s = producer();
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("requestId", "r-42");
        meta.put("by", Map.of("user", 7, "ip", "10.0.0.1"));
        meta.put("note", "żółw \ud83d\udc22 \"quoted\"");
        long id = s.enqueue(MAIL, new Mail("ada@example.com"),
                EnqueueOptions.defaults().withTags("signup", "tenant:acme", "signup").withMetadata(meta));
        JobInfo job = s.find(id).orElseThrow();
        assertThat(job.tags()).as("repeats kept once, order kept").containsExactly("signup", "tenant:acme");
        assertThat(JSON.readTree(job.metadataJson())).isEqualTo(JSON.valueToTree(meta));

        long plain = s.enqueue(MAIL, new Mail("bob@example.com"));
        JobInfo untagged = s.find(plain).orElseThrow();
        assertThat(untagged.tags()).isEmpty();
        assertThat(JSON.readTree(untagged.metadataJson())).isEqualTo(JSON.createObjectNode());
    }

    @Test
    void aBulkEnqueueMixingTaggedUniqueAndPlainJobsKeepsEveryJobsOwnOptionsAndOrder() {
        Skipjack s = producer();
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            EnqueueOptions o = EnqueueOptions.defaults();
            if (i % 3 == 0) {
                o = o.withTags("batch-7", "n" + i);
            }
            if (i % 5 == 0) {
                o = o.withUnique(Unique.byArgs());
            }
            if (i % 7 == 0) {
                o = o.withMetadata(Map.of("i", i));
            }
            requests.add(JobRequest.of(MAIL, new Mail("u" + i + "@example.com"), o));
        }
        List<Long> ids = s.enqueueAll(requests);
        assertThat(ids).doesNotHaveDuplicates().hasSize(30);
        for (int i = 0; i < 30; i++) {
            JobInfo job = s.find(ids.get(i)).orElseThrow();
            assertThat(job.argsJson()).as("job %d is request %d", ids.get(i), i).contains("u" + i + "@");
            assertThat(job.tags()).isEqualTo(i % 3 == 0 ? List.of("batch-7", "n" + i) : List.of());
            assertThat(job.uniqueKey() != null).isEqualTo(i % 5 == 0);
            assertThat(job.metadataJson().replace(" ", "")).isEqualTo(i % 7 == 0 ? "{\"i\":" + i + "}" : "{}");
        }
    }

    @Test
    void tagsFilterTheQueryAndTheBulkActions() throws Exception {
        Skipjack s = producer();
        long a = s.enqueue(MAIL, new Mail("a"), EnqueueOptions.defaults().withTags("import-9", "vip"));
        long b = s.enqueue(MAIL, new Mail("b"), EnqueueOptions.defaults().withTags("import-9"));
        long c = s.enqueue(MAIL, new Mail("c"), EnqueueOptions.defaults().withTags("import-10"));
        long d = s.enqueue(MAIL, new Mail("d"));
        // Inside a caller's transaction too.
        long e;
        try (Connection conn = dataSource.getConnection()) {
            conn.setAutoCommit(false);
            e = s.enqueue(conn, MAIL, new Mail("e"), EnqueueOptions.defaults().withTags("vip"));
            conn.commit();
        }
        SkipjackAdmin admin = s.admin();
        assertThat(ids(admin.jobs(JobQuery.all().tag("import-9")))).containsExactly(b, a);
        assertThat(ids(admin.jobs(JobQuery.all().tag("vip")))).containsExactly(e, a);
        assertThat(ids(admin.jobs(JobQuery.all().tag("import")))).as("a tag matches whole, not as a prefix").isEmpty();
        assertThat(ids(admin.jobs(JobQuery.all()))).containsExactly(e, d, c, b, a);

        assertThat(admin.act(JobAction.CANCEL, JobQuery.all().tag("import-9"))).isEqualTo(2);
        assertThat(s.find(a).orElseThrow().state()).isEqualTo(JobState.CANCELLED);
        assertThat(s.find(b).orElseThrow().state()).isEqualTo(JobState.CANCELLED);
        assertThat(s.find(c).orElseThrow().state()).isEqualTo(JobState.AVAILABLE);
        assertThat(s.find(d).orElseThrow().state()).isEqualTo(JobState.AVAILABLE);
    }

    @Test
    void badTagsAndMetadataAreRefusedAtTheCallSiteAndInsertNothing() {
        Skipjack s = producer();
        assertThatThrownBy(() -> EnqueueOptions.defaults().withTags("ok", "not ok"))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("invalid tag 'not ok'");
        assertThatThrownBy(() -> EnqueueOptions.defaults().withTags("x".repeat(65))).isInstanceOf(InvalidOptionException.class);
        assertThatThrownBy(() -> EnqueueOptions.defaults().withTags((String) null)).isInstanceOf(InvalidOptionException.class);
        String[] many = new String[17];
        for (int i = 0; i < many.length; i++) {
            many[i] = "t" + i;
        }
        assertThatThrownBy(() -> EnqueueOptions.defaults().withTags(many)).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("at most 16 tags, got 17");
        assertThatThrownBy(() -> EnqueueOptions.defaults().withMetadata(null)).isInstanceOf(InvalidOptionException.class);
        assertThatThrownBy(() -> JobQuery.all().tag("a b")).isInstanceOf(InvalidOptionException.class);

        EnqueueOptions huge = EnqueueOptions.defaults().withMetadata(Map.of("blob", "x".repeat(9_000)));
        assertThatThrownBy(() -> s.enqueue(MAIL, new Mail("a"), huge)).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("over the limit of 8192 bytes");
        EnqueueOptions unserializable = EnqueueOptions.defaults().withMetadata(Map.of("self", new Object()));
        assertThatThrownBy(() -> s.enqueueAll(List.of(JobRequest.of(MAIL, new Mail("ok")),
                JobRequest.of(MAIL, new Mail("b"), unserializable))))
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("does not serialize");
        assertThat(queryLong("SELECT count(*) FROM " + jobsTable())).as("one bad request inserts none").isZero();
    }
}
