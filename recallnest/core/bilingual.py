"""A general English/Chinese developer vocabulary: the bridge prompt-time recall uses between a
prompt and a note written in the other language (issue 23, decision 0033).

The shipped embedding model ranks a prompt's own language first whatever it says (decision
0022, round 37): a Chinese prompt's English answer is 4th-27th of all notes by cosine, behind
Chinese notes about anything. Words do not have that bias: 故障 is "incident" in any store. Each
group below holds the usual English words (with their common inflections: the prompt side is
matched word by word) and the usual Chinese words for one technical notion, written from
general knowledge of how developers say things in both languages, topic by topic; no group was
written for one note or one prompt. Rules for an entry:

- only words whose meaning in a developer's prompt is that notion (not 新 "new", 用 "use", 放
  "put", 问题 "problem");
- no single Chinese character (表 is in 报表, 值班表 and 表示);
- a word may sit in several groups only when it means each of them (发布: release and publish).

`retrieval.query.synonym_links` reads these groups like its own; prompt recall's search
expands its keyword query with them (`SearchRequest.bilingual`) and its gate counts a word said
in the other language as a shared word (`relevance.Link`). Same-language members of a group
never count in the gate. Capture reads them too (`english_glosses`): a change said in Chinese
("心跳间隔改成 60 秒") names the setting the code calls `heartbeat_interval`.
"""

from __future__ import annotations

from functools import cache

# fmt: off
_WRITTEN: tuple[tuple[str, ...], ...] = (
    # --- incidents and operations
    ("incident", "incidents", "outage", "outages", "故障", "事故", "线上问题"),
    ("on-call", "oncall", "on call", "on duty", "值班", "值班人员"),
    ("notify", "notified", "notifies", "notification", "notifications", "通知"),
    ("postmortem", "post-mortem", "retrospective", "复盘"),
    ("runbook", "runbooks", "playbook", "预案", "操作手册"),
    ("production", "prod", "生产环境", "线上环境", "线上"),
    ("staging", "pre-production", "预发", "预发布", "预发环境"),
    ("restart", "restarted", "restarts", "reboot", "重启"),
    ("firmware", "固件"),
    ("rollout", "roll out", "rolling out", "gradual rollout", "canary", "staged rollout",
     "灰度", "灰度发布", "放量"),
    ("feature flag", "feature flags", "feature toggle", "feature toggles", "功能开关", "开关"),
    ("hotfix", "hotfixes", "hot fix", "emergency fix", "热修复", "紧急修复"),
    ("code freeze", "release freeze", "deploy freeze", "freeze window", "封版", "封网"),
    ("release", "releases", "releasing", "ship", "shipping", "go live", "发版", "上线",
     "发布"),
    ("deploy", "deployed", "deploying", "deployment", "发版", "部署"),
    ("publish", "published", "publishing", "发布"),
    ("downtime", "停机"),
    ("maintenance window", "维护窗口"),
    ("scale up", "scale out", "autoscaling", "auto-scaling", "扩容", "弹性伸缩"),
    ("scale down", "缩容"),
    ("replica", "replicas", "副本"),
    ("load balancer", "load balancing", "负载均衡"),
    ("traffic", "流量"),
    ("memory", "ram", "内存"),
    ("disk", "disk space", "磁盘", "硬盘"),
    ("killed", "oom-killed", "oom killed", "杀掉", "被杀"),
    ("process", "processes", "进程"),
    ("thread", "threads", "线程"),
    ("message queue", "queue", "queues", "消息队列", "队列"),
    ("consumer", "consumers", "消费者", "消费端"),
    ("producer", "producers", "生产者"),
    ("backlog", "consumer lag", "lag", "lagging", "积压", "堆积"),
    ("cluster", "clusters", "集群"),
    ("node", "nodes", "节点"),
    ("server", "servers", "服务器"),
    ("gateway", "网关"),
    ("proxy", "reverse proxy", "代理", "反向代理"),
    ("domain", "domain name", "dns", "域名", "域名解析"),
    ("network", "networking", "网络"),
    ("firewall", "防火墙"),
    ("bandwidth", "带宽"),
    ("throughput", "qps", "吞吐", "吞吐量"),
    ("concurrency", "concurrent", "并发"),
    ("deadlock", "deadlocks", "死锁"),
    ("hang", "hangs", "hung", "stuck", "unresponsive", "卡住", "卡死", "无响应"),
    ("circuit breaker", "熔断"),
    ("degrade", "degraded", "graceful degradation", "fallback", "降级", "兜底"),
    ("idempotent", "idempotency", "幂等"),
    ("dashboard", "dashboards", "大盘", "仪表盘", "看板"),
    ("tracing", "distributed tracing", "链路追踪"),
    ("warning", "warnings", "警告"),
    ("log rotation", "rotate", "rotates", "rotating", "rotated", "轮转", "日志切割"),
    ("crontab", "scheduled job", "scheduled task", "定时任务"),
    # --- releases, versions, dependencies
    ("bump", "bumps", "bumped", "bumping", "upgrade", "upgrades", "upgrading", "升级"),
    ("downgrade", "downgrades", "降级版本"),
    ("pin", "pinned", "pinning", "lock file", "lockfile", "锁定"),
    ("dependency", "dependencies", "requirements", "third-party library", "依赖", "依赖包",
     "第三方库"),
    ("install", "installs", "installed", "installation", "安装"),
    ("uninstall", "卸载"),
    ("virtual environment", "virtualenv", "venv", "虚拟环境"),
    ("changelog", "change log", "release notes", "更新日志", "变更日志", "发布说明"),
    ("tag", "tags", "git tag", "打标签"),
    # --- version control and review
    ("pull request", "pull requests", "merge request", "pr", "合并请求"),
    ("description", "descriptions", "描述"),
    ("merge", "merged", "merging", "合并"),
    ("merge conflict", "conflict", "conflicts", "冲突"),
    ("rebase", "rebased", "变基"),
    ("repository", "repositories", "repo", "repos", "仓库", "代码仓库", "代码库"),
    ("commit message", "commit messages", "提交说明", "提交信息"),
    ("code review", "review", "reviews", "reviewer", "代码评审", "代码审查", "评审"),
    ("approval", "approve", "approved", "sign-off", "审批", "批准"),
    # --- code
    ("refactor", "refactoring", "refactored", "重构"),
    ("rewrite", "rewrites", "rewrote", "rewritten", "rewriting", "重写"),
    ("variable", "variables", "变量"),
    ("function", "functions", "函数"),
    ("module", "modules", "模块"),
    ("interface", "interfaces", "接口定义"),
    ("parameter", "parameters", "argument", "arguments", "参数"),
    ("return value", "返回值"),
    ("type hints", "type hint", "type annotations", "typing", "类型注解", "类型标注"),
    ("type check", "type checking", "static analysis", "类型检查", "静态检查"),
    ("enum", "enums", "枚举"),
    ("constant", "constants", "常量"),
    ("null", "nullable", "空值"),
    ("exception handling", "error handling", "异常处理", "错误处理"),
    ("error message", "error messages", "错误信息", "报错信息", "错误提示"),
    ("error code", "error codes", "status code", "status codes", "错误码", "状态码"),
    ("naming", "naming convention", "named", "命名", "命名规范"),
    ("snake_case", "snake case", "下划线命名"),
    ("camelcase", "camel case", "驼峰"),
    ("plural", "plurals", "复数"),
    ("hard-code", "hard-coded", "hardcode", "hardcoded", "hard code", "硬编码", "写死"),
    ("regex", "regular expression", "正则", "正则表达式"),
    ("encoding", "utf-8", "编码"),
    ("garbled", "mojibake", "乱码"),
    ("serialize", "serialization", "序列化"),
    ("async", "asynchronous", "异步"),
    ("sync", "synchronous", "synchronize", "同步"),
    ("template", "templates", "模板"),
    ("component", "components", "widget", "widgets", "组件", "小组件"),
    ("convention", "conventions", "guideline", "guidelines", "规范", "约定"),
    ("best practice", "best practices", "最佳实践"),
    # --- testing and quality
    ("unit test", "unit tests", "单元测试"),
    ("integration test", "integration tests", "集成测试"),
    ("end-to-end test", "e2e test", "e2e tests", "端到端测试"),
    ("test coverage", "coverage", "覆盖率"),
    ("flaky", "intermittent", "intermittently", "不稳定", "偶发", "时好时坏"),
    ("benchmark", "benchmarks", "load test", "stress test", "压测", "压力测试", "基准测试"),
    ("profiling", "profiler", "性能分析"),
    ("optimize", "optimise", "optimization", "optimisation", "优化"),
    ("memory usage", "内存占用"),
    # --- data and databases
    ("table", "tables", "table name", "table names", "数据表", "表名", "建表", "表结构"),
    ("schema", "schemas", "表结构"),
    ("field", "fields", "字段"),
    ("index", "indexes", "indices", "索引"),
    ("slow query", "slow queries", "慢查询"),
    ("query", "queries", "查询"),
    ("transaction", "transactions", "事务"),
    ("primary key", "主键"),
    ("foreign key", "外键"),
    ("partition", "partitions", "partitioning", "分区"),
    ("sharding", "shard", "shards", "分片", "分库分表"),
    ("replication", "read replica", "主从", "只读副本"),
    ("restore", "restored", "recovery", "恢复", "还原"),
    ("archive", "archived", "archiving", "归档"),
    ("backfill", "data fix", "补数据", "回填"),
    ("seed data", "fixtures", "种子数据"),
    ("export", "exports", "exported", "导出"),
    ("import", "imports", "imported", "导入"),
    ("upload", "uploads", "uploaded", "上传"),
    ("download", "downloads", "下载"),
    ("file", "files", "文件"),
    ("directory", "directories", "folder", "folders", "目录", "文件夹"),
    ("path", "paths", "路径"),
    ("temporary file", "temporary files", "temp file", "temp files", "临时文件"),
    ("clean up", "cleanup", "清理"),
    ("delete", "deleted", "deletes", "remove", "removed", "删除"),
    ("storage", "object storage", "bucket", "存储", "对象存储"),
    ("expire", "expired", "expires", "expiry", "expiration", "ttl", "过期", "失效"),
    ("date", "dates", "日期"),
    ("format", "formats", "formatted", "格式"),
    ("timestamp", "timestamps", "时间戳"),
    ("decimal", "decimals", "float", "floats", "floating point", "小数", "浮点数"),
    ("precision", "rounding", "精度", "四舍五入"),
    ("currency", "currencies", "货币", "币种"),
    ("amount", "amounts", "金额"),
    ("price", "prices", "价格"),
    # --- product domains
    ("payment", "payments", "支付", "付款"),
    ("refund", "refunds", "退款"),
    ("order", "orders", "订单"),
    ("invoice", "invoices", "发票"),
    ("checkout", "结账", "结算"),
    ("shopping cart", "cart", "购物车"),
    ("customer", "customers", "客户"),
    ("account", "accounts", "账号", "账户"),
    ("password", "passwords", "密码", "口令"),
    ("api key", "api keys", "api token", "access token", "token", "tokens", "令牌", "密钥"),
    ("encrypt", "encrypted", "encryption", "加密"),
    ("decrypt", "decryption", "解密"),
    ("signature", "signatures", "签名", "验签"),
    ("validate", "validation", "validated", "verify", "verified", "verification", "校验",
     "验证"),
    ("role", "roles", "角色"),
    ("administrator", "admin", "管理员"),
    ("session", "sessions", "会话"),
    ("signup", "sign up", "register", "registration", "注册"),
    ("logout", "log out", "sign out", "退出登录"),
    ("captcha", "verification code", "验证码"),
    ("two-factor", "2fa", "mfa", "双因素", "二次验证"),
    ("vulnerability", "vulnerabilities", "漏洞"),
    ("security", "安全"),
    ("audit", "audit log", "审计"),
    ("privacy", "personal data", "pii", "隐私", "个人信息", "敏感信息", "敏感数据"),
    ("redact", "redaction", "masking", "脱敏"),
    ("email", "emails", "邮件", "邮箱"),
    ("sms", "text message", "短信"),
    ("push notification", "push notifications", "推送"),
    ("search", "搜索"),
    ("filter", "filters", "过滤", "筛选"),
    ("sort", "sorting", "排序"),
    ("pagination", "paginate", "paging", "分页"),
    ("recommendation", "recommendations", "推荐"),
    ("user", "users", "用户"),
    ("image", "images", "picture", "pictures", "photo", "photos", "图片", "照片"),
    ("thumbnail", "thumbnails", "缩略图"),
    ("video", "videos", "视频"),
    # --- front end
    ("button", "buttons", "按钮"),
    ("web page", "webpage", "page", "pages", "页面"),
    ("form", "forms", "表单"),
    ("dialog", "modal", "popup", "弹窗", "对话框"),
    ("stylesheet", "css", "styles", "样式"),
    ("layout", "布局"),
    ("font", "fonts", "字体"),
    ("dark mode", "dark theme", "深色模式", "暗色模式"),
    ("responsive", "响应式"),
    ("blank page", "white screen", "blank screen", "白屏"),
    ("bundle", "bundle size", "bundles", "包体积", "打包体积"),
    ("translation", "translations", "translate", "localization", "localisation", "i18n",
     "internationalization", "internationalisation", "翻译", "国际化", "本地化", "多语言"),
    ("accessibility", "a11y", "无障碍"),
    # --- configuration and environment
    ("environment variable", "environment variables", "env var", "env vars", "环境变量"),
    ("config file", "config files", "configuration file", "配置文件"),
    ("command", "commands", "命令"),
    ("command line", "terminal", "shell", "命令行", "终端"),
    ("request", "requests", "请求"),
    ("response", "responses", "响应"),
    ("connection", "connections", "连接"),
    ("connection string", "dsn", "连接串", "连接字符串"),
    ("upper limit", "limit", "limits", "cap", "maximum", "上限", "限制"),
    ("quota", "quotas", "配额"),
    ("budget", "budgets", "预算"),
    # --- people and time
    ("team lead", "tech lead", "lead", "manager", "组长", "负责人", "主管"),
    ("owner", "owners", "owned", "owns", "负责"),
    ("team", "teams", "团队"),
    ("meeting", "meetings", "会议"),
    ("requirement", "requirements doc", "spec", "specification", "需求", "需求文档"),
    ("ticket", "tickets", "工单"),
    ("monday", "周一", "星期一"),
    ("tuesday", "周二", "星期二"),
    ("wednesday", "周三", "星期三"),
    ("thursday", "周四", "星期四"),
    ("friday", "fridays", "周五", "星期五"),
    ("saturday", "周六", "星期六"),
    ("sunday", "周日", "星期日", "星期天"),
    ("weekend", "weekends", "周末"),
    ("holiday", "holidays", "节假日", "假期"),
    ("weekly", "every week", "每周"),
    ("daily", "every day", "每天", "每日"),
    ("morning", "上午", "早上"),
    ("afternoon", "下午"),
    ("evening", "night", "tonight", "晚上"),
    ("midnight", "overnight", "凌晨"),
    ("noon", "midday", "lunchtime", "lunch time", "中午", "午间"),
    # --- the physical things the apps people build watch: sensors, readings, cold rooms
    ("alarm", "alarms", "alert", "alerts", "alerting", "告警", "报警"),
    ("sensor", "sensors", "传感器"),
    ("probe", "probes", "探头"),
    ("temperature", "temperatures", "温度"),
    ("humidity", "湿度"),
    ("reading", "readings", "读数"),
    ("threshold", "thresholds", "阈值"),
    ("curve", "line chart", "曲线", "折线图"),
    ("fridge", "refrigerator", "冰箱"),
    ("freezer", "freezers", "冷柜", "冰柜"),
    ("cold room", "cold storage", "冷库"),
    ("power cut", "power outage", "停电", "断电"),
    ("deadline", "deadlines", "截止日期", "截止时间"),
    # --- more of the same kinds: debugging, lifecycle, data flow, commerce
    ("debug", "debugging", "debugger", "调试"),
    ("breakpoint", "breakpoints", "断点"),
    ("stack trace", "stacktrace", "call stack", "堆栈", "调用栈"),
    ("garbage collection", "gc pause", "垃圾回收"),
    ("deprecated", "deprecate", "deprecation", "废弃", "弃用"),
    ("legacy code", "legacy", "遗留代码", "老代码"),
    ("technical debt", "tech debt", "技术债"),
    ("license", "licence", "licensing", "许可证", "开源协议"),
    ("open source", "open-source", "开源"),
    ("availability", "uptime", "可用性"),
    ("heartbeat", "heartbeats", "心跳"),
    # --- settings people name in either language (what a duration or a size is of)
    ("interval", "intervals", "间隔", "时间间隔"),
    ("timeout", "timeouts", "timed out", "超时"),
    ("retry", "retries", "retried", "retrying", "重试"),
    ("cache", "caches", "cached", "caching", "缓存"),
    ("refresh", "refreshes", "refreshed", "刷新"),
    ("delay", "delays", "delayed", "延迟", "延时"),
    ("latency", "延迟", "时延"),
    ("retention", "retain", "retained", "保留", "保留期", "保留时间"),
    ("backup", "backups", "back up", "备份"),
    ("lock", "locks", "locked", "locking", "加锁", "锁定", "分布式锁"),
    ("lock timeout", "lock wait timeout", "锁超时", "锁等待超时"),
    ("graceful shutdown", "shut down gracefully", "优雅退出", "优雅停机"),
    ("daemon", "background process", "守护进程", "后台进程"),
    ("websocket", "websockets", "长连接"),
    ("polling", "poll", "轮询"),
    ("batch", "batches", "batch job", "批量", "批处理"),
    ("streaming", "stream", "streams", "流式"),
    ("cursor", "cursors", "游标"),
    ("locale", "locales", "区域设置"),
    ("discount", "discounts", "折扣"),
    ("coupon", "coupons", "优惠券"),
    ("subscription", "subscriptions", "订阅"),
    ("billing", "计费", "账单"),
    ("tax", "taxes", "税费", "税率"),
    ("inventory", "stock level", "库存"),
    ("shipping address", "delivery", "配送", "收货地址"),
    ("login page", "登录页"),
    ("home page", "homepage", "首页"),
    ("mini program", "小程序"),
    ("mobile app", "移动端", "手机端"),
    ("browser", "browsers", "浏览器"),
    ("compatibility", "compatible", "兼容", "兼容性"),
    ("screenshot", "screenshots", "截图"),
    ("crash report", "crash reports", "崩溃日志"),
)
# fmt: on


def _plural(word: str) -> str | None:
    """The plural of an English word or of a phrase's last word (approval -> approvals, pull
    request -> pull requests), for prompts matched word by word; None for other words."""
    head, _, last = word.rpartition(" ")
    if not (last.isascii() and last.isalpha() and len(last) > 2):
        return None
    if last.endswith(("s", "ed", "ing")):  # written as a plural or a verb form already
        return None
    if last.endswith(("x", "ch", "sh")):
        last += "es"
    elif last.endswith("y") and last[-2] not in "aeiou":
        last = last[:-1] + "ies"
    else:
        last += "s"
    return f"{head} {last}" if head else last


def _with_plurals(group: tuple[str, ...]) -> tuple[str, ...]:
    """`group` and the plurals of its English words (a plural that is another word of the
    vocabulary only repeats it)."""
    return tuple(dict.fromkeys([*group, *(p for w in group if (p := _plural(w)))]))


# The groups as prompt recall reads them: nouns are written in the singular where they can
# be asked either way.
BILINGUAL_GROUPS: tuple[tuple[str, ...], ...] = tuple(_with_plurals(g) for g in _WRITTEN)


def _has_han(word: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in word)


@cache
def _glosses() -> tuple[tuple[str, frozenset[str]], ...]:
    """(Chinese word, the English words of its groups, phrases split into words), longest
    Chinese word first."""
    english: dict[str, set[str]] = {}
    for group in BILINGUAL_GROUPS:
        words = {p for w in group if not _has_han(w) for p in w.replace("-", " ").split()}
        for zh in (w for w in group if _has_han(w)):
            english.setdefault(zh, set()).update(words)
    return tuple(
        (zh, frozenset(en)) for zh, en in sorted(english.items(), key=lambda kv: -len(kv[0]))
    )


def english_glosses(text: str) -> set[str]:
    """The English words (lower case) of every group whose Chinese word `text` says:
    {"heartbeat", "heartbeats", "interval", ...} for 心跳间隔, {"lock", "timeout", ...} for
    锁超时."""
    out: set[str] = set()
    for zh, english in _glosses():
        if zh in text:
            out |= english
    return out
