import CSDBusShim

/// The service manager that started the daemon (systemd, for the user unit).
public enum ServiceManager {
    /// Says the daemon takes commands now. The unit is `Type=notify`, so `systemctl --user enable --now boxvoice`
    /// returns only then and a `boxvoice status` right after it finds the daemon. Without a service manager
    /// (`$NOTIFY_SOCKET` unset: started by hand) nothing happens.
    public static func ready() { _ = bv_notify_ready() }
}
