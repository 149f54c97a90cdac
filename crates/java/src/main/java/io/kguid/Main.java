package io.kguid;

/**
 * {@code java -jar kguid.jar [n] [g|l|x|sno]}: prints {@code n} new ids (default
 * one global id), one a line; a check that the jar's library loads here.
 */
public final class Main {
    private Main() {}

    /**
     * Prints new ids.
     *
     * @param args how many, and which kind
     */
    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        String kind = args.length > 1 ? args[1] : "g";
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < n; i++) {
            Object id;
            switch (kind) {
                case "l": id = Luid.now(); break;
                case "x": id = io.kguid.v3.Xuid.now(); break;
                case "sno": id = Sno.now(0); break;
                default: id = Guid.now();
            }
            out.append(id).append('\n');
        }
        System.out.print(out);
    }
}
