import path from 'node:path';

export interface NginxConfigOptions {
  /** Folder for pid, logs and temporary files. */
  dir: string;
  listenPort: number;
  upstreamPorts: number[];
  runAsRoot: boolean;
  /** Request body limit: at least the receivers' BODY_LIMIT_BYTES. */
  clientMaxBodyBytes: number;
}

/**
 * The balancer the harness proves, in the shape a deployer should copy (docs/load-balancer.md).
 * Harness-only lines are marked.
 */
export function nginxConfig(o: NginxConfigOptions): string {
  const file = (name: string) => path.join(o.dir, name);
  const servers = o.upstreamPorts
    .map((port) => `    server 127.0.0.1:${port} max_fails=1 fail_timeout=2s;`)
    .join('\n');
  return `# written by tools/load-balancer/core/nginx-config.ts
${o.runAsRoot ? 'user root;  # harness: the temp folder is root-only\n' : ''}worker_processes 1;
pid ${file('nginx.pid')};
error_log ${file('error.log')} warn;
events { worker_connections 1024; }

http {
  log_format lb '$remote_addr $lb_request_id "$request" $status $body_bytes_sent '
                'upstream=$upstream_addr upstream_status=$upstream_status rt=$request_time';
  access_log ${file('access.log')} lb;
  client_body_temp_path ${file('client-body')};
  proxy_temp_path ${file('proxy')};
  fastcgi_temp_path ${file('fastcgi')};
  uwsgi_temp_path ${file('uwsgi')};
  scgi_temp_path ${file('scgi')};

  # Rejection batches can be large: never below the receivers' BODY_LIMIT_BYTES.
  client_max_body_size ${o.clientMaxBodyBytes};
  keepalive_requests 10000;

  # Keep the sender's X-Request-Id, or make one: the receiver logs and stores it.
  map $http_x_request_id $lb_request_id {
    default $http_x_request_id;
    ''      $request_id;
  }

  upstream receivers {
${servers}
    keepalive 32;
    # Below the receiver's keep-alive (65 s): the balancer closes idle connections first, so it
    # never sends a request down a socket the receiver is closing.
    keepalive_timeout 60s;
    keepalive_requests 10000;
  }

  server {
    listen 127.0.0.1:${o.listenPort};

    location / {
      proxy_pass http://receivers;
      proxy_http_version 1.1;
      proxy_set_header Connection '';
      proxy_set_header Host $host;
      proxy_set_header X-Request-Id $lb_request_id;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;

      # Deliveries are idempotent by Webhookid (unique constraints, INSERT ... ON CONFLICT DO
      # NOTHING), so a POST that may already have reached one instance is safe to send to the
      # other: at worst it is answered 200 "already received". Hence non_idempotent. Not
      # http_500: the receiver's 500 means the shared database failed, and the other instance
      # shares it.
      proxy_next_upstream error timeout http_502 http_503 non_idempotent;
      proxy_next_upstream_tries 2;
      proxy_next_upstream_timeout 15s;
      proxy_connect_timeout 2s;
      proxy_send_timeout 30s;
      proxy_read_timeout 30s;

      add_header X-Upstream $upstream_addr always;  # harness: which instance(s) answered
    }
  }
}
`;
}
