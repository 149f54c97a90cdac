package io.kguid;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Path;
import java.nio.file.Paths;

/** The repository's Go vectors (tests/data, read in place) and the count of cases checked. */
final class Vectors {
    private Vectors() {}

    /** Prints a section's count of cases checked (crates/java/test sums them). */
    static void count(String what, int n) {
        System.out.println("vectors " + what + ": " + n);
    }

    static JsonNode load(String name) throws IOException {
        String dir = System.getProperty("kguid.vectors", "../../tests/data");
        Path p = Paths.get(dir, name);
        return new ObjectMapper().readTree(p.toFile());
    }

    /** A "0x..." value as an unsigned long. */
    static long hex(JsonNode v) {
        return Long.parseUnsignedLong(v.asText().substring(2), 16);
    }

    static BigInteger big(JsonNode v) {
        return new BigInteger(v.asText().substring(2), 16);
    }

    static byte[] bytes(String hex) {
        byte[] b = new byte[hex.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }

    static String hexOf(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(String.format("%02x", x & 0xff));
        }
        return s.toString();
    }

    /** The text of input bytes as Java sees it (the vectors' inputs may be any bytes: Latin-1 keeps one char a byte). */
    static String latin1(byte[] b) {
        return new String(b, java.nio.charset.StandardCharsets.ISO_8859_1);
    }
}
