package io.kguid;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a class's main in a fresh JVM of the same class path, with one environment variable set. */
final class Child {
    private Child() {}

    static String run(Class<?> main, String var, String value) throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        String lib = System.getProperty("kguid.library");
        if (lib != null) {
            cmd.add("-Dkguid.library=" + lib);
        }
        cmd.add(main.getName());
        // Its standard error apart: Java 24+ warns there of the library's load
        // from the class path.
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
        if (var != null) {
            pb.environment().put(var, value);
        }
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError("child " + main.getName() + " failed: " + out);
        }
        return out;
    }
}
