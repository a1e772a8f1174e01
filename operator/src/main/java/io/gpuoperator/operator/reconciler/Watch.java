package io.gpuoperator.operator.reconciler;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.javaoperatorsdk.operator.api.config.informer.FieldSelector;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.Mappers;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a reconciler watches besides its primary, declared the same way by every reconciler: the
 * kind and the event source's name, where (namespace, selectors), what is kept (an item store that
 * slims), which updates count, and which primaries a change reconciles: every one ({@link
 * #allPrimaries}, when the answer depends on all of them) or the owner ({@link #owner}).
 */
final class Watch<R extends HasMetadata, P extends HasMetadata> {
  private final EventSourceContext<P> context;
  private final InformerEventSourceConfiguration.Builder<R> config;

  private Watch(Class<R> type, String name, EventSourceContext<P> context) {
    this.context = context;
    this.config =
        InformerEventSourceConfiguration.from(type, context.getPrimaryResourceClass())
            .withName(name);
  }

  /** A watch of {@code type}, named {@code name} among the reconciler's event sources. */
  static <R extends HasMetadata, P extends HasMetadata> Watch<R, P> of(
      Class<R> type, String name, EventSourceContext<P> context) {
    return new Watch<>(type, name, context);
  }

  Watch<R, P> in(String namespace) {
    config.withNamespaces(Set.of(namespace));
    return this;
  }

  Watch<R, P> labelled(String labelSelector) {
    config.withLabelSelector(labelSelector);
    return this;
  }

  /** One object by name (a field selector takes one value). */
  Watch<R, P> named(String name) {
    config.withFieldSelector(new FieldSelector(new FieldSelector.Field("metadata.name", name)));
    return this;
  }

  Watch<R, P> keeping(ItemStore<R> store) {
    config.withItemStore(store);
    return this;
  }

  /** Only updates {@code changed} accepts reconcile (adds and deletes always do). */
  Watch<R, P> onUpdateWhen(OnUpdateFilter<? super R> changed) {
    config.withOnUpdateFilter(changed);
    return this;
  }

  /** Every change reconciles every primary: what it decides depends on all of them. */
  InformerEventSource<R, P> allPrimaries() {
    var primaries = context.getPrimaryCache();
    config.withSecondaryToPrimaryMapper(
        r -> primaries.list().map(ResourceID::fromResource).collect(Collectors.toSet()));
    return new InformerEventSource<>(config.build(), context);
  }

  /**
   * A change reconciles the primary whose UID is the object's {@code key} label (an owner reference
   * cannot cross namespaces; the label can).
   */
  InformerEventSource<R, P> byUidLabel(String key) {
    var primaries = context.getPrimaryCache();
    config.withSecondaryToPrimaryMapper(
        r -> {
          String uid =
              r.getMetadata().getLabels() == null ? null : r.getMetadata().getLabels().get(key);
          return uid == null
              ? Set.of()
              : primaries
                  .list(p -> uid.equals(p.getMetadata().getUid()))
                  .map(ResourceID::fromResource)
                  .collect(Collectors.toSet());
        });
    return new InformerEventSource<>(config.build(), context);
  }

  /** A change reconciles the primary that controls the object (its owner reference). */
  InformerEventSource<R, P> owner() {
    config.withSecondaryToPrimaryMapper(
        Mappers.fromOwnerReferences(context.getPrimaryResourceClass(), true));
    return new InformerEventSource<>(config.build(), context);
  }

  /** Updates that change the spec (the generation) or start a deletion. */
  static <R extends HasMetadata> boolean specOrDeletionChanged(R after, R before) {
    return specChanged(after, before)
        || !Objects.equals(
            after.getMetadata().getDeletionTimestamp(),
            before.getMetadata().getDeletionTimestamp());
  }

  /** Updates that change the spec (the generation). */
  static <R extends HasMetadata> boolean specChanged(R after, R before) {
    return !Objects.equals(
        after.getMetadata().getGeneration(), before.getMetadata().getGeneration());
  }

  /** Updates that change the labels. */
  static <R extends HasMetadata> boolean labelsChanged(R after, R before) {
    return !Objects.equals(after.getMetadata().getLabels(), before.getMetadata().getLabels());
  }

  /** No update counts: only the object appearing or going away does. */
  static <R extends HasMetadata> boolean never(R after, R before) {
    return false;
  }
}
