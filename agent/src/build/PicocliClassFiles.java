import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Enumeration;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;

/**
 * Build step, run on the shaded jar after the shade plugin (agent/pom.xml): rewrites picocli's class
 * files, which picocli ships as Java 5 class files (version 49), as Java 8 class files (version 52) with
 * stack map frames computed by ASM; the code itself is unchanged. The JVM's class-data archive holds no
 * class file older than version 50, so each runbook command used to read and verify picocli's ~170
 * classes from the jar at every start (docs/performance.md, "Runbook command start-up"). Every other
 * entry is copied as it is, in the same order. Running it again changes nothing.
 *
 * <p>Usage: java -cp asm.jar:JAR PicocliClassFiles.java JAR
 */
public final class PicocliClassFiles {
    private static final int OLDEST_ARCHIVABLE = 50;

    public static void main(String[] args) throws IOException {
        Path jar = Path.of(args[0]);
        Path tmp = jar.resolveSibling(jar.getFileName() + ".rewrite.tmp");
        int rewritten = 0;
        boolean commandLine = false;
        try (ZipFile in = new ZipFile(jar.toFile());
             OutputStream file = Files.newOutputStream(tmp);
             ZipOutputStream out = new ZipOutputStream(file)) {
            Enumeration<? extends ZipEntry> entries = in.entries();
            while (entries.hasMoreElements()) {
                ZipEntry e = entries.nextElement();
                byte[] b;
                try (InputStream s = in.getInputStream(e)) {
                    b = s.readAllBytes();
                }
                if (e.getName().startsWith("picocli/") && e.getName().endsWith(".class") && major(b) < OLDEST_ARCHIVABLE) {
                    b = java8(b);
                    rewritten++;
                }
                if (e.getName().equals("picocli/CommandLine.class")) {
                    commandLine = major(b) >= OLDEST_ARCHIVABLE;
                }
                ZipEntry o = new ZipEntry(e.getName());
                o.setTime(e.getTime());
                if (e.getComment() != null) {
                    o.setComment(e.getComment());
                }
                if (e.getExtra() != null) {
                    o.setExtra(e.getExtra());
                }
                if (e.getMethod() == ZipEntry.STORED) {
                    CRC32 crc = new CRC32();
                    crc.update(b);
                    o.setMethod(ZipEntry.STORED);
                    o.setSize(b.length);
                    o.setCompressedSize(b.length);
                    o.setCrc(crc.getValue());
                }
                out.putNextEntry(o);
                out.write(b);
                out.closeEntry();
            }
        } catch (IOException | RuntimeException | Error e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        if (!commandLine) {
            // Nothing to rewrite would be a silent loss of the class-data archive's picocli: say so.
            Files.deleteIfExists(tmp);
            throw new IllegalStateException("picocli/CommandLine.class is not in " + jar
                    + " as a class file of version 50 or later: the jar's layout changed");
        }
        Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        if (Boolean.getBoolean("picocli.verbose")) System.out.println("picocli: " + rewritten + " class files rewritten as version 52 in " + jar);
    }

    private static int major(byte[] classFile) {
        return ((classFile[6] & 0xff) << 8) | (classFile[7] & 0xff);
    }

    /** The same class as a version 52 class file, its stack map frames computed (a Java 5 class file has none). */
    private static byte[] java8(byte[] classFile) {
        ClassReader reader = new ClassReader(classFile);
        // No ClassReader handed to the writer: it would copy the methods as they are, without frames.
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
                super.visit(Opcodes.V1_8, access, name, signature, superName, interfaces);
            }
        }, ClassReader.SKIP_FRAMES);
        return writer.toByteArray();
    }
}
