package io.jetstream.flink.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jetstream.flink.gate.JetStreamInputGate;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.runtime.io.network.partition.ResultPartition;
import org.apache.flink.runtime.io.network.partition.consumer.IndexedInputGate;
import org.junit.jupiter.api.Test;

/**
 * Guards the decorators against Flink upgrades: every public or protected method that Flink's
 * partition and gate types declare or inherit (defaults included) must be overridden by our
 * decorator, or a new Flink method would silently run the base class's code on empty state instead
 * of the delegate's.
 */
class DecoratorCompletenessTest {

    @Test
    void resultPartitionDecoratorForwardsEveryMethod() {
        // release() only calls release(null), which is forwarded; the two protected helpers serve
        // subclasses' own data paths, which the decorator does not have.
        Set<String> allowed = Set.of(
                "release()", "checkInProduceState()",
                "canBeCompressed(interface org.apache.flink.runtime.io.network.buffer.Buffer)");
        assertEquals(List.of(), notOverridden(ResultPartition.class, JetStreamResultPartition.class, allowed));
    }

    @Test
    void inputGateDecoratorForwardsEveryMethod() {
        assertEquals(List.of(), notOverridden(IndexedInputGate.class, JetStreamInputGate.class, Set.of()));
    }

    private static List<String> notOverridden(Class<?> base, Class<?> decorator, Set<String> allowed) {
        Set<Method> inherited = new LinkedHashSet<>();
        collect(base, inherited);
        List<String> missing = new ArrayList<>();
        for (Method m : inherited) {
            int mod = m.getModifiers();
            if (Modifier.isStatic(mod) || Modifier.isFinal(mod) || Modifier.isPrivate(mod) || m.isSynthetic()
                    || m.getDeclaringClass() == Object.class
                    || !(Modifier.isPublic(mod) || Modifier.isProtected(mod))) {
                continue;
            }
            String signature = m.getName() + Arrays.toString(m.getParameterTypes()).replace('[', '(').replace(']', ')');
            if (allowed.contains(signature)) {
                continue;
            }
            try {
                Method own = decorator.getDeclaredMethod(m.getName(), m.getParameterTypes());
                if (own.getDeclaringClass() != decorator) {
                    missing.add(signature);
                }
            } catch (NoSuchMethodException e) {
                missing.add(signature);
            }
        }
        return missing;
    }

    private static void collect(Class<?> type, Set<Method> into) {
        if (type == null || type == Object.class) {
            return;
        }
        into.addAll(Arrays.asList(type.getDeclaredMethods()));
        collect(type.getSuperclass(), into);
        for (Class<?> i : type.getInterfaces()) {
            collect(i, into);
        }
    }
}
