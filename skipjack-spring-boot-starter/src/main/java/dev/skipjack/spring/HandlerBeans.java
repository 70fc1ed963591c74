package dev.skipjack.spring;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.skipjack.InvalidConfigurationException;
import dev.skipjack.Job;
import dev.skipjack.JobHandler;
import dev.skipjack.JobKind;
import dev.skipjack.KindOptions;
import dev.skipjack.Outcome;
import dev.skipjack.Skipjack;
import dev.skipjack.TransactionalJobHandler;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.ResolvableType;

import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The handler beans of an application context: every bean implementing {@link JobHandler} or
 * {@link TransactionalJobHandler}, with the kind its {@link HandlesKind} names and the args type
 * its declaration gives. Read from the bean definitions, without creating the beans: the client
 * gets a handler that looks its bean up at the first job, so a handler bean may itself inject
 * the {@link Skipjack} client or the {@link SkipjackTemplate} (to enqueue follow-up jobs) without
 * a dependency cycle.
 */
final class HandlerBeans {

    /** One handler bean and the kind it runs. */
    record HandlerBean(String beanName, JobKind<?> kind, boolean transactional) {
    }

    private final List<HandlerBean> beans;

    private HandlerBeans(List<HandlerBean> beans) {
        this.beans = beans;
    }

    /**
     * The handler beans of {@code beanFactory}.
     *
     * @throws InvalidConfigurationException (option {@code kind}) naming the bean, when a handler
     *                                       bean declares no kind, its args type cannot be read, it
     *                                       implements both handler interfaces, or two beans handle
     *                                       one kind
     */
    static HandlerBeans of(ConfigurableListableBeanFactory beanFactory) {
        Set<String> lease = new LinkedHashSet<>(Arrays.asList(beanFactory.getBeanNamesForType(JobHandler.class, true, false)));
        Set<String> transactional = new LinkedHashSet<>(
                Arrays.asList(beanFactory.getBeanNamesForType(TransactionalJobHandler.class, true, false)));
        Set<String> names = new LinkedHashSet<>(lease);
        names.addAll(transactional);
        Map<String, String> beanOfKind = new LinkedHashMap<>();
        List<HandlerBean> found = new ArrayList<>();
        for (String name : names) {
            if (lease.contains(name) && transactional.contains(name)) {
                throw invalid(name, beanFactory, "implements both JobHandler and TransactionalJobHandler:"
                        + " a kind runs in one mode, so implement one of them");
            }
            boolean isTransactional = transactional.contains(name);
            Class<?> handlerInterface = isTransactional ? TransactionalJobHandler.class : JobHandler.class;
            HandlesKind declared = beanFactory.findAnnotationOnBean(name, HandlesKind.class, false);
            if (declared == null) {
                throw invalid(name, beanFactory, "implements " + handlerInterface.getSimpleName()
                        + " but names no kind: annotate its class or its @Bean method with @HandlesKind(\"kind-name\")");
            }
            JobKind<?> kind = kind(name, beanFactory, declared.value(), argsType(name, beanFactory, handlerInterface));
            String earlier = beanOfKind.putIfAbsent(kind.name(), name);
            if (earlier != null) {
                throw invalid(name, beanFactory, "handles kind '" + kind.name() + "', which bean '" + earlier
                        + "' handles already: one handler bean per kind");
            }
            found.add(new HandlerBean(name, kind, isTransactional));
        }
        return new HandlerBeans(List.copyOf(found));
    }

    List<HandlerBean> beans() {
        return beans;
    }

    boolean isEmpty() {
        return beans.isEmpty();
    }

    /** Registers each bean's handler on {@code builder} with the options {@code kindOptions} gives for its kind. */
    @SuppressWarnings("unchecked")
    void registerOn(Skipjack.Builder builder, BeanFactory beanFactory, Map<String, KindOptions> kindOptions) {
        for (HandlerBean bean : beans) {
            JobKind<Object> kind = (JobKind<Object>) bean.kind();
            KindOptions options = kindOptions.getOrDefault(kind.name(), KindOptions.defaults());
            if (bean.transactional()) {
                builder.transactionalHandler(kind, options, new TransactionalBeanHandler(beanFactory, bean.beanName()));
            } else {
                builder.handler(kind, options, new LeaseBeanHandler(beanFactory, bean.beanName()));
            }
        }
    }

    /** The handler's type argument as its declaration gives it: the bean definition's type, else the bean's class. */
    private static Type argsType(String name, ConfigurableListableBeanFactory beanFactory, Class<?> handlerInterface) {
        ResolvableType generic = ResolvableType.NONE;
        if (beanFactory.containsBeanDefinition(name)) {
            generic = beanFactory.getMergedBeanDefinition(name).getResolvableType().as(handlerInterface).getGeneric(0);
        }
        if (generic.resolve() == null) {
            Class<?> beanClass = beanFactory.getType(name, false);
            if (beanClass != null) {
                generic = ResolvableType.forClass(beanClass).as(handlerInterface).getGeneric(0);
            }
        }
        Type type = generic.getType();
        if (generic.resolve() == null || !isConcrete(type)) {
            throw invalid(name, beanFactory, "declares no concrete args type (found " + generic
                    + "): declare it as " + handlerInterface.getSimpleName() + "<YourArgs>, on its class or as the"
                    + " return type of its @Bean method (a lambda registered as a plain object has none)");
        }
        return type;
    }

    /** Whether {@code type} is a class, or generic over classes only: something Jackson can read args as. */
    private static boolean isConcrete(Type type) {
        if (type instanceof Class<?>) {
            return true;
        }
        if (type instanceof ParameterizedType p) {
            return Arrays.stream(p.getActualTypeArguments()).allMatch(HandlerBeans::isConcrete);
        }
        if (type instanceof GenericArrayType a) {
            return isConcrete(a.getGenericComponentType());
        }
        return false;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static JobKind<?> kind(String beanName, ConfigurableListableBeanFactory beanFactory, String kindName, Type argsType) {
        try {
            if (argsType instanceof Class<?> c) {
                return JobKind.of(kindName, (Class) c);
            }
            // A generic args type, e.g. List<Row>: JobKind takes those as a TypeReference.
            return JobKind.of(kindName, new TypeReference<Object>() {
                @Override
                public Type getType() {
                    return argsType;
                }
            });
        } catch (InvalidConfigurationException e) {
            throw invalid(beanName, beanFactory, "has @HandlesKind(\"" + kindName + "\"): " + e.getMessage());
        }
    }

    private static InvalidConfigurationException invalid(String beanName, ConfigurableListableBeanFactory beanFactory,
                                                         String problem) {
        return new InvalidConfigurationException("kind", "handler bean '" + beanName + "' (" + origin(beanName, beanFactory)
                + ") " + problem);
    }

    /** Where the bean comes from, for the reader of an error: its @Bean method, else its class. */
    private static String origin(String beanName, ConfigurableListableBeanFactory beanFactory) {
        if (beanFactory.containsBeanDefinition(beanName)) {
            BeanDefinition definition = beanFactory.getMergedBeanDefinition(beanName);
            if (definition.getFactoryMethodName() != null && definition instanceof RootBeanDefinition root
                    && root.getResolvedFactoryMethod() != null) {
                Method method = root.getResolvedFactoryMethod();
                return "@Bean method " + method.getDeclaringClass().getName() + "." + method.getName() + "()";
            }
        }
        Class<?> type = beanFactory.getType(beanName, false);
        return type == null ? "type unknown" : type.getName();
    }

    /** A lease-mode handler that runs the bean's, looked up at the first job. */
    private static final class LeaseBeanHandler implements JobHandler<Object> {
        private final BeanFactory beanFactory;
        private final String beanName;
        private volatile JobHandler<Object> bean;

        LeaseBeanHandler(BeanFactory beanFactory, String beanName) {
            this.beanFactory = beanFactory;
            this.beanName = beanName;
        }

        @Override
        @SuppressWarnings("unchecked")
        public Outcome handle(Job<Object> job) throws Exception {
            JobHandler<Object> handler = bean;
            if (handler == null) {
                handler = beanFactory.getBean(beanName, JobHandler.class);
                bean = handler;
            }
            return handler.handle(job);
        }
    }

    /** A transactional handler that runs the bean's, looked up at the first job. */
    private static final class TransactionalBeanHandler implements TransactionalJobHandler<Object> {
        private final BeanFactory beanFactory;
        private final String beanName;
        private volatile TransactionalJobHandler<Object> bean;

        TransactionalBeanHandler(BeanFactory beanFactory, String beanName) {
            this.beanFactory = beanFactory;
            this.beanName = beanName;
        }

        @Override
        @SuppressWarnings("unchecked")
        public Outcome handle(Job<Object> job, Connection tx) throws Exception {
            TransactionalJobHandler<Object> handler = bean;
            if (handler == null) {
                handler = beanFactory.getBean(beanName, TransactionalJobHandler.class);
                bean = handler;
            }
            return handler.handle(job, tx);
        }
    }
}
