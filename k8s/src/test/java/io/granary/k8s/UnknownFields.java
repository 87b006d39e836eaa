package io.granary.k8s;

import io.fabric8.kubernetes.api.model.KubernetesResource;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Fields fabric8's model did not recognise. Its classes never fail on an unknown field: they keep it in
 * {@code additionalProperties}, so a misspelled {@code replicaz} parses fine and the API server would drop or reject it.
 */
final class UnknownFields {

    private UnknownFields() {
    }

    /** Paths such as {@code spec.template.spec.containers[0].imagePullPolizy}, in the order met. */
    static List<String> in(KubernetesResource resource) {
        List<String> found = new ArrayList<>();
        walk(resource, "", found);
        return found;
    }

    private static void walk(Object node, String path, List<String> found) {
        if (node instanceof KubernetesResource resource) {
            for (Method getter : getters(resource.getClass())) {
                Object value = get(getter, resource);
                String field = fieldName(getter);
                // A schema's own additionalProperties (a CRD's) is a field of the model, not what it did not know.
                if (field.equals("additionalProperties") && value instanceof Map<?, ?> unknown) {
                    unknown.keySet().forEach(key -> found.add(join(path, String.valueOf(key))));
                } else {
                    walk(value, join(path, field), found);
                }
            }
        } else if (node instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                walk(list.get(i), path + "[" + i + "]", found);
            }
        } else if (node instanceof Map<?, ?> map) {
            map.forEach((key, value) -> walk(value, path + "[" + key + "]", found));
        }
    }

    /** Getters that can lead to more model objects; strings and numbers hold no fields. */
    private static List<Method> getters(Class<?> type) {
        return Arrays.stream(type.getMethods())
                .filter(m -> m.getName().startsWith("get") && m.getParameterCount() == 0)
                .filter(m -> !Modifier.isStatic(m.getModifiers()))
                .filter(m -> KubernetesResource.class.isAssignableFrom(m.getReturnType())
                        || List.class.isAssignableFrom(m.getReturnType())
                        || Map.class.isAssignableFrom(m.getReturnType()))
                .sorted(Comparator.comparing(Method::getName))
                .toList();
    }

    private static Object get(Method getter, Object target) {
        try {
            return getter.invoke(target);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read " + getter, e);
        }
    }

    private static String fieldName(Method getter) {
        String name = getter.getName().substring(3);
        return Character.toLowerCase(name.charAt(0)) + name.substring(1);
    }

    private static String join(String path, String field) {
        return path.isEmpty() ? field : path + "." + field;
    }
}
