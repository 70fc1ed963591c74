package dev.skipjack.cli.output;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.PrintWriter;

/**
 * Prints {@code --json} documents. Jobs, pages, queues and stats get their shape from
 * {@link dev.skipjack.internal.json.JobJson}, the one the dashboard's API answers with too.
 */
public final class JsonOutput {

    public static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private JsonOutput() {
    }

    public static void print(PrintWriter out, JsonNode node) {
        try {
            out.println(MAPPER.writeValueAsString(node));
            out.flush();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
