import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Compiles as javac would with the same arguments and prints the compiler's
 * diagnostics as JSON, read through javax.tools (the labels of the runner
 * corpus; internal/corpus/testdata/labels.py reads them):
 *
 * {"files": [path...], "diagnostics": [{"file", "line", "column", "kind", "code", "message"}]}
 *
 * Paths are relative to the current folder. Exits 1 when there is an error,
 * as javac does.
 *
 *   java JavacLabels.java [javac options] SOURCES...
 */
public class JavacLabels {
    public static void main(String[] args) throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diags = new DiagnosticCollector<>();
        List<String> options = new ArrayList<>();
        List<File> sources = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].endsWith(".java")) {
                sources.add(new File(args[i]));
            } else {
                options.add(args[i]);
            }
        }
        boolean ok;
        try (StandardJavaFileManager files = javac.getStandardFileManager(diags, Locale.ROOT, null)) {
            ok = javac.getTask(null, files, diags, options, null, files.getJavaFileObjectsFromFiles(sources)).call();
        }
        Path cwd = Path.of("").toAbsolutePath();
        StringBuilder out = new StringBuilder("{\"files\": [");
        for (int i = 0; i < sources.size(); i++) {
            out.append(i > 0 ? ", " : "").append(quote(rel(cwd, sources.get(i).getPath())));
        }
        out.append("],\n\"diagnostics\": [");
        boolean first = true;
        for (Diagnostic<? extends JavaFileObject> d : diags.getDiagnostics()) {
            out.append(first ? "\n" : ",\n");
            first = false;
            String file = d.getSource() == null ? null : rel(cwd, d.getSource().toUri().getPath());
            out.append(String.format(" {\"file\": %s, \"line\": %d, \"column\": %d, \"kind\": %s, \"code\": %s, \"message\": %s}",
                    file == null ? "null" : quote(file), d.getLineNumber(), d.getColumnNumber(), quote(d.getKind().name()),
                    quote(d.getCode()), quote(d.getMessage(Locale.ROOT))));
        }
        out.append("]}");
        System.out.println(out);
        System.exit(ok ? 0 : 1);
    }

    static String rel(Path cwd, String path) {
        Path p = Path.of(path).toAbsolutePath().normalize();
        return p.startsWith(cwd) ? cwd.relativize(p).toString() : p.toString();
    }

    static String quote(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
