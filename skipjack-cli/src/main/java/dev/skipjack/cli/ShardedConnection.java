package dev.skipjack.cli;

import dev.skipjack.InvalidConfigurationException;
import dev.skipjack.ShardedAdmin;
import dev.skipjack.SkipjackAdmin;
import picocli.CommandLine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The databases an operator command works on: {@code --url}'s, and each {@code --shard}'s, as one
 * {@link ShardedAdmin}. Without {@code --shard} it is one shard and every command reads and prints
 * as on one database (bare job ids, no shard column).
 */
final class ShardedConnection implements AutoCloseable {

    private final List<AdminConnection> databases;
    private final List<String> names;
    private final ShardedAdmin admin;

    private ShardedConnection(List<AdminConnection> databases, List<String> names) {
        this.databases = databases;
        this.names = names;
        Map<String, SkipjackAdmin> admins = new LinkedHashMap<>();
        for (int i = 0; i < databases.size(); i++) {
            admins.put(names.get(i), databases.get(i).admin());
        }
        try {
            this.admin = ShardedAdmin.of(admins);
        } catch (InvalidConfigurationException e) {
            throw new CliException(e.getMessage());
        }
    }

    static ShardedConnection open(CommandLine commandLine, DatabaseOptions database, ShardOptions shardOptions) {
        List<ShardOptions.Shard> shards = shardOptions.shards();
        List<AdminConnection> databases = new ArrayList<>();
        List<String> names = new ArrayList<>();
        try {
            AdminConnection first = AdminConnection.open(commandLine, database);
            databases.add(first);
            names.add(ShardOptions.nameOf(database.url().orElseThrow()));
            for (ShardOptions.Shard shard : shards) {
                if (names.contains(shard.name())) {
                    throw new CliException("two shards are named '" + shard.name() + "' (the shards are " + names
                            + " and " + shard.name() + "): name them with --shard NAME=URL");
                }
                databases.add(AdminConnection.open(commandLine, shard.url(),
                        database.schemaFor(shard.url(), AdminConnection.DEFAULT_SCHEMA)));
                names.add(shard.name());
            }
            return new ShardedConnection(databases, names);
        } catch (RuntimeException e) {
            databases.forEach(AdminConnection::close);
            throw e;
        }
    }

    ShardedAdmin admin() {
        return admin;
    }

    /** Whether there are several shards (jobs then show, and need, their shard). */
    boolean sharded() {
        return databases.size() > 1;
    }

    /** The database of each shard, by name, for messages. */
    Map<String, String> displayNames() {
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < databases.size(); i++) {
            out.put(names.get(i), databases.get(i).displayName());
        }
        return out;
    }

    @Override
    public void close() {
        databases.forEach(AdminConnection::close);
    }
}
