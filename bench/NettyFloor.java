import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.ArrayDeque;

/**
 * How little an HTTP-level forwarder can add on this machine: Netty's HTTP codec on each side, one event loop
 * for both, the engine connection bound to the client connection (no pool, no rest), the Connection header
 * dropped and X-Forwarded-For added, and nothing else: no metering, no limits, no error handling. Not part
 * of the agent; measured with {@code ProxyOverhead run} as the proxy, beside the agent's proxy and the TCP
 * relay (docs/performance.md).
 *
 * <pre>
 * for a in common buffer transport resolver codec-base codec-http handler; do
 *   mvn -q dependency:get -Dartifact=io.netty:netty-$a:4.2.21.Final -Dtransitive=false; done
 * CP=$(ls ~/.m2/repository/io/netty/netty-{common,buffer,transport,resolver,codec-base,codec-http,handler}/4.2.21.Final/netty-*.jar | tr '\n' :)
 * java $(bench/jvm-flags.sh) -cp "$CP" bench/NettyFloor.java LISTEN_PORT TARGET_PORT
 * </pre>
 */
public class NettyFloor {
    public static void main(String[] a) throws Exception {
        int listen = Integer.parseInt(a[0]);
        int target = Integer.parseInt(a[1]);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new ClientSide(target));
                    }
                })
                .bind("127.0.0.1", listen).sync().channel().closeFuture().sync();
    }

    /** The client's connection: each request goes on to the engine over the connection bound to this one. */
    static final class ClientSide extends ChannelInboundHandlerAdapter {
        private final int target;
        private final ArrayDeque<Object> pending = new ArrayDeque<>();
        private Channel engine;
        private boolean connected;

        ClientSide(int target) {
            this.target = target;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest r) {
                r.headers().remove(HttpHeaderNames.CONNECTION);
                r.headers().add("X-Forwarded-For", "127.0.0.1");
                if (engine == null || !engine.isActive()) {
                    connected = false;
                    Channel client = ctx.channel();
                    ChannelFuture f = new Bootstrap().group(client.eventLoop()).channel(NioSocketChannel.class)
                            .option(ChannelOption.TCP_NODELAY, true)
                            .handler(new ChannelInitializer<SocketChannel>() {
                                @Override
                                protected void initChannel(SocketChannel ch) {
                                    ch.pipeline().addLast(new HttpClientCodec(), new EngineSide(client));
                                }
                            })
                            .connect("127.0.0.1", target);
                    engine = f.channel();
                    f.addListener(x -> {
                        connected = true;
                        for (Object o; (o = pending.poll()) != null; ) {
                            engine.write(o);
                        }
                        engine.flush();
                    });
                }
            }
            if (connected) {
                engine.write(msg);
                if (msg instanceof LastHttpContent) {
                    engine.flush();
                }
            } else {
                pending.add(msg);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (engine != null) {
                engine.close();
            }
        }
    }

    /** The engine's connection: every part of the answer is written and flushed to the client as it comes. */
    static final class EngineSide extends ChannelInboundHandlerAdapter {
        private final Channel client;

        EngineSide(Channel client) {
            this.client = client;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            client.writeAndFlush(msg);
        }
    }
}
