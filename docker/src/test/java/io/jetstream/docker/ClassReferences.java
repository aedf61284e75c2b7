package io.jetstream.docker;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The classes a class file refers to, from its constant pool (JVMS §4.4): every {@code CONSTANT_Class}
 * entry, array types reduced to their element class. Enough to tell whether a jar carries what its
 * own classes need, without loading them (that would need the engine on the class path).
 */
final class ClassReferences {
    private ClassReferences() {}

    static Set<String> of(byte[] classFile) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort(); // minor
        in.readUnsignedShort(); // major
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        List<Integer> classNameIndexes = new ArrayList<>();
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> utf8[i] = in.readUTF();
                case 7 -> classNameIndexes.add(in.readUnsignedShort());
                case 8, 16, 19, 20 -> in.readUnsignedShort();
                case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt();
                case 15 -> {
                    in.readUnsignedByte();
                    in.readUnsignedShort();
                }
                case 5, 6 -> {
                    in.readLong();
                    i++; // takes two entries
                }
                default -> throw new IOException("unknown constant pool tag " + tag + " at entry " + i);
            }
        }
        Set<String> names = new HashSet<>();
        for (int index : classNameIndexes) {
            String name = utf8[index];
            if (name == null) {
                throw new IOException("class entry points at a missing name (entry " + index + ")");
            }
            int array = name.lastIndexOf('[');
            if (array >= 0) {
                if (name.charAt(array + 1) != 'L') {
                    continue; // an array of primitives
                }
                name = name.substring(array + 2, name.length() - 1);
            }
            names.add(name);
        }
        return names;
    }
}
