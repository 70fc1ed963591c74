package dev.skipjack.cli;

import picocli.CommandLine;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code --shard [NAME=]URL}, repeatable: the other databases of a {@link dev.skipjack.ShardedSkipjack},
 * read and acted on with {@code --url}'s as one (through {@link dev.skipjack.ShardedAdmin}). Jobs
 * are then addressed as {@code SHARD:ID}: a shard is named by NAME, or else by its database's name
 * ({@code --url}'s too).
 */
public final class ShardOptions {

    private static final Pattern NAMED = Pattern.compile("([a-z0-9][a-z0-9_.-]{0,63})=(.+)");

    /** One shard's database and the name jobs are addressed by. */
    record Shard(String name, DatabaseUrl url) {
    }

    @Option(names = "--shard", paramLabel = "[NAME=]URL",
            description = "Another shard's database (repeatable; same --schema), used with --url's as one: counts summed, "
                    + "jobs listed from every shard and addressed as SHARD:ID. NAME defaults to the database's name.")
    private List<String> shards = new ArrayList<>();

    boolean any() {
        return !shards.isEmpty();
    }

    /** The shards given, each named (its NAME=, or its database's name). */
    List<Shard> shards() {
        List<Shard> out = new ArrayList<>();
        for (String raw : shards) {
            Matcher m = NAMED.matcher(raw);
            String url = m.matches() ? m.group(2) : raw;
            DatabaseUrl parsed;
            try {
                parsed = DatabaseUrl.parse(url);
            } catch (IllegalArgumentException e) {
                throw new CliException("--shard " + DatabaseUrl.redact(raw) + ": " + e.getMessage());
            }
            out.add(new Shard(m.matches() ? m.group(1) : nameOf(parsed), parsed));
        }
        return out;
    }

    /** A shard's default name: its database's name (a SQLite file's without extension), lower-cased. */
    static String nameOf(DatabaseUrl url) {
        String path = url.jdbcUrl().replaceFirst("^jdbc:[a-z]+:(//[^/]*/)?", "").replaceFirst("[?;].*$", "");
        String base = path.substring(path.lastIndexOf('/') + 1).replaceFirst("\\.[^.]*$", "");
        String name = base.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_.-]", "_");
        return name.isEmpty() ? "db" : name;
    }

    /** Refuses --shard on a command that cannot use it yet. */
    void refuse(CommandLine commandLine, String why) {
        if (any()) {
            throw new CommandLine.ParameterException(commandLine, "--shard: " + why);
        }
    }
}
