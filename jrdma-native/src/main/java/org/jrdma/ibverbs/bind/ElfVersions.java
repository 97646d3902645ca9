package org.jrdma.ibverbs.bind;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The symbol versions a shared library defines ({@code objdump -p}'s "Version definitions"): the
 * {@code SHT_GNU_verdef} section of a 64-bit little-endian ELF file, its names from the string table
 * the section links to. Read from the file, without dlvsym. Pure; any thread.
 */
public final class ElfVersions {
    private static final int SHT_GNU_VERDEF = 0x6ffffffd;

    private ElfVersions() {
    }

    /**
     * The version names the library defines, e.g. {@code libibverbs.so.1, IBVERBS_1.0, IBVERBS_1.1, ...}.
     *
     * @throws IOException when the file cannot be read or is not a 64-bit little-endian ELF file
     */
    public static Set<String> definitions(Path file) throws IOException {
        ByteBuffer b;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            b = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size()).order(ByteOrder.LITTLE_ENDIAN);
        }
        if (b.limit() < 64 || b.getInt(0) != 0x464c457f || b.get(4) != 2 || b.get(5) != 1) {
            throw new IOException(file + " is not a 64-bit little-endian ELF file");
        }
        long shoff = b.getLong(0x28);
        int shentsize = Short.toUnsignedInt(b.getShort(0x3a));
        int shnum = Short.toUnsignedInt(b.getShort(0x3c));
        Set<String> names = new LinkedHashSet<>();
        for (int i = 0; i < shnum; i++) {
            int sh = (int) (shoff + (long) i * shentsize);
            if (b.getInt(sh + 4) != SHT_GNU_VERDEF) {
                continue;
            }
            int offset = (int) b.getLong(sh + 0x18);
            int link = b.getInt(sh + 0x28);
            int info = b.getInt(sh + 0x2c); // number of entries
            int strtab = (int) b.getLong((int) (shoff + (long) link * shentsize) + 0x18);
            int vd = offset;
            for (int n = 0; n < info; n++) {
                int vdAux = b.getInt(vd + 12);
                int vdNext = b.getInt(vd + 16);
                int nameOff = b.getInt(vd + vdAux); // the first Verdaux: this version's own name
                names.add(cString(b, strtab + nameOff));
                if (vdNext == 0) {
                    break;
                }
                vd += vdNext;
            }
        }
        return names;
    }

    private static String cString(ByteBuffer b, int at) {
        int end = at;
        while (b.get(end) != 0) {
            end++;
        }
        byte[] s = new byte[end - at];
        b.get(at, s);
        return new String(s, StandardCharsets.US_ASCII);
    }
}
